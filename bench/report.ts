/** The scoreboard as Markdown: the cases, the verdicts, round trips and bundles. */
import type { BundleFigures } from './bundles.js';
import {
  CAPACITY_HEADER,
  capacityCells,
  capacityRows,
  LISTPACK_HEADER,
  listpackCells,
} from './capacity.js';
import type { ColdStartFigures } from './cold-start.js';
import { type ConnectCount, commandsOf, type RoundTripCount } from './round-trips.js';
import type { CaseResult } from './runner.js';
import type { Spread } from './stats.js';
import type { Verdict } from './targets.js';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGb: number;
  readonly node: string;
  readonly valkey: string;
  readonly bullmq: string;
  /** 1-minute load average at the start and the end of the run. */
  readonly load: readonly [number, number];
  readonly date: string;
  readonly rounds: number;
  /** Where client and servers ran (pin.ts). */
  readonly placement: string;
}

const int = (value: number): string =>
  Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–';
const fixed = (value: number, digits = 1): string =>
  Number.isFinite(value) ? value.toFixed(digits) : '–';

type Align = 'left' | 'right';

/** A Markdown table with padded columns, as the formatter (Biome) writes it. */
function markdownTable(
  header: readonly string[],
  align: readonly Align[],
  rows: string[][],
): string {
  const widths = header.map((title, column) =>
    Math.max(3, title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    `| ${cells
      .map((cell, column) => {
        const width = widths[column] ?? 3;
        return align[column] === 'right' ? cell.padStart(width) : cell.padEnd(width);
      })
      .join(' | ')} |`;
  const rule = widths.map((width, column) =>
    align[column] === 'right' ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width),
  );
  return [line(header), line(rule), ...rows.map(line)].join('\n');
}

function spreadText(spread: Spread): string {
  return `${int(spread.min)}–${int(spread.max)}`;
}

export function machineLine(machine: Machine): string {
  return `${machine.date}; ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB; Node ${machine.node}, Valkey ${machine.valkey} (native family, raw EMQ.ENQUEUE and BullMQ on a server with the module, function and script families on one without), BullMQ ${machine.bullmq}; client and servers on the same host over loopback, ${machine.placement}; ${machine.rounds} rounds per case; load average ${machine.load[0].toFixed(2)} at start, ${machine.load[1].toFixed(2)} at end.`;
}

/** The capacity rows (capacity.ts): the scoreboard's first table. */
export function capacityTable(cases: readonly CaseResult[]): string {
  return markdownTable(
    CAPACITY_HEADER,
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
    capacityRows(cases).map(capacityCells),
  );
}

/** The function family and its floor with rows as hash tables and as listpacks. */
export function listpackTable(cases: readonly CaseResult[]): string {
  return markdownTable(
    LISTPACK_HEADER,
    ['left', 'left', 'right', 'right', 'right', 'right'],
    listpackCells(cases),
  );
}

export function casesTable(cases: readonly CaseResult[]): string {
  return markdownTable(
    [
      'case',
      'jobs/s (median)',
      'spread (min–max)',
      'server CPU µs/job',
      'command µs/job',
      'client CPU µs/job',
      'memory B/job',
      'p99 ms/call',
    ],
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
    cases.map((c) => [
      c.label,
      int(c.jobsPerSecond.median),
      spreadText(c.jobsPerSecond),
      fixed(c.serverCpuUsPerJob.median),
      fixed(c.commandUsPerJob.median),
      fixed(c.clientCpuUsPerJob.median),
      int(c.memoryBytesPerJob.median),
      fixed(c.p99UnitMs.median, 2),
    ]),
  );
}

/** Where the server's command time goes: each command a case caused, per unit and per call. */
export function commandTable(cases: readonly CaseResult[]): string {
  const rows = cases.flatMap((c) =>
    // The bench's own INFO between rounds is no part of a case.
    Object.entries(c.callsPerUnit)
      .filter(([name]) => name !== 'info')
      .map(([name, calls]) => [
        c.id,
        name,
        fixed(calls, 2),
        fixed(c.usecPerCall[name] ?? Number.NaN, 2),
      ]),
  );
  return markdownTable(
    ['case', 'command (nested ones too)', 'calls per unit', 'µs per call'],
    ['left', 'left', 'right', 'right'],
    rows,
  );
}

export function verdictTable(verdicts: readonly Verdict[]): string {
  const mark = (met: boolean | null): string => (met === null ? '–' : met ? 'pass' : 'MISS');
  return markdownTable(
    ['target', 'measured', 'goal', 'verdict'],
    ['left', 'right', 'right', 'left'],
    verdicts.map((v) => [v.target, v.shown, v.goal, mark(v.met)]),
  );
}

export function roundTripTable(counts: readonly RoundTripCount[]): string {
  return markdownTable(
    ['path', 'family', 'round trips per batch'],
    ['left', 'left', 'right'],
    counts.map((c) => [c.what, c.family, String(c.perBatch)]),
  );
}

export function connectTable(counts: readonly ConnectCount[]): string {
  return markdownTable(
    ['fresh connect(), one primary', 'round trips', 'commands', 'which'],
    ['left', 'right', 'right', 'left'],
    counts.map((c) => [
      c.family,
      String(c.roundTrips),
      String(commandsOf(c)),
      Object.entries(c.commands)
        .map(([name, calls]) => `${name.toUpperCase()} ×${calls}`)
        .join(', '),
    ]),
  );
}

export function bundleTable(bundles: readonly BundleFigures[]): string {
  return markdownTable(
    ['import', 'size', 'import ms (median)', 'spread (min–max)'],
    ['left', 'right', 'right', 'right'],
    bundles.map((b) => [
      b.target,
      b.bytes === null ? '(package)' : `${(b.bytes / 1000).toFixed(1)} KB`,
      fixed(b.importMs.median),
      `${fixed(b.importMs.min)}–${fixed(b.importMs.max)}`,
    ]),
  );
}

export function coldStartTable(cold: ColdStartFigures): string {
  const row = (what: string, spread: Spread): string[] => [
    what,
    fixed(spread.median),
    `${fixed(spread.min)}–${fixed(spread.max)}`,
  ];
  return markdownTable(
    ['cold process to first admission', 'wall ms (median)', 'spread (min–max)'],
    ['left', 'right', 'right'],
    [
      row('SQS bundle: node, import, connect and checks, 1 record', cold.emq),
      row('BullMQ producer: node, import, new Queue, add', cold.bullmq),
    ],
  );
}

export function fullReport(parts: {
  machine: Machine;
  cases: readonly CaseResult[];
  verdicts: readonly Verdict[];
  roundTrips: readonly RoundTripCount[];
  connects: readonly ConnectCount[];
  bundles: readonly BundleFigures[];
  coldStarts: ColdStartFigures;
}): string {
  return [
    `Machine: ${machineLine(parts.machine)}`,
    '',
    capacityTable(parts.cases),
    '',
    listpackTable(parts.cases),
    '',
    casesTable(parts.cases),
    '',
    verdictTable(parts.verdicts),
    '',
    roundTripTable(parts.roundTrips),
    '',
    connectTable(parts.connects),
    '',
    bundleTable(parts.bundles),
    '',
    coldStartTable(parts.coldStarts),
  ].join('\n');
}
