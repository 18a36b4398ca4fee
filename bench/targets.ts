/**
 * The speed table of the performance issue, row by row, as ratios of figures measured in the
 * same run; then what the issue asks reported without a goal (each family's server time and
 * memory per keyed admission, the bundles).
 */
import type { BundleFigures } from './bundles.js';
import { capacityGoal, capacityRows } from './capacity.js';
import type { Family } from './case.js';
import type { ColdStartFigures } from './cold-start.js';
import { type ConnectCount, commandsOf, type RoundTripCount } from './round-trips.js';
import type { CaseResult } from './runner.js';

export interface Verdict {
  readonly target: string;
  /** The measured value, e.g. a ratio of two medians. */
  readonly value: number;
  /** How the value is shown: `2.61×`, `1`, `145.1 KB`. */
  readonly shown: string;
  /** The goal as text, e.g. `≥ 2.5`; `report` for figures without a goal. */
  readonly goal: string;
  /** true met, false missed, null a reported figure without a goal. */
  readonly met: boolean | null;
}

export interface Figures {
  readonly cases: readonly CaseResult[];
  readonly roundTrips: readonly RoundTripCount[];
  readonly connects: readonly ConnectCount[];
  readonly bundles: readonly BundleFigures[];
  readonly coldStarts: ColdStartFigures;
}

interface Goal {
  readonly value: number;
  /** true: the value must not exceed the goal (a cost); false: must reach it (a rate). */
  readonly atMost: boolean;
}

const KB = 1000;
const FAMILIES: readonly Family[] = ['native', 'function', 'script'];

export function verdicts({ cases, roundTrips, connects, bundles, coldStarts }: Figures): Verdict[] {
  const figure = (id: string, pick: (c: CaseResult) => number): number => {
    const found = cases.find((c) => c.id === id);
    return found === undefined ? Number.NaN : pick(found);
  };
  const rate = (id: string): number => figure(id, (c) => c.jobsPerSecond.median);
  const serverCpu = (id: string): number => figure(id, (c) => c.serverCpuUsPerJob.median);
  const commandUs = (id: string): number => figure(id, (c) => c.commandUsPerJob.median);
  const clientCpu = (id: string): number => figure(id, (c) => c.clientCpuUsPerJob.median);
  const memory = (id: string): number => figure(id, (c) => c.memoryBytesPerJob.median);
  const p99 = (id: string): number => figure(id, (c) => c.p99UnitMs.median);
  const judged = (target: string, value: number, goal?: Goal): Verdict => ({
    target,
    value,
    shown: `${value.toFixed(2)}×`,
    goal: goal === undefined ? 'report' : `${goal.atMost ? '≤' : '≥'} ${goal.value.toFixed(1)}`,
    met:
      goal === undefined
        ? null
        : Number.isFinite(value) && (goal.atMost ? value <= goal.value : value >= goal.value),
  });
  const atLeast = (value: number): Goal => ({ value, atMost: false });
  const atMost = (value: number): Goal => ({ value, atMost: true });
  const ratio = (target: string, top: string, bottom: string, goal?: Goal): Verdict =>
    judged(target, rate(top) / rate(bottom), goal);
  const reported = (target: string, value: number, shown: string): Verdict => ({
    target,
    value,
    shown,
    goal: 'report',
    met: null,
  });

  const out: Verdict[] = [
    ...capacityRows(cases).map((row) =>
      judged(
        `jobs per core ÷ BullMQ addBulk(${row.size}), SQS ×${row.size} ${row.family}, 8 in flight (server CPU)`,
        row.bullmqUs / row.us,
        atLeast(capacityGoal(row.family, row.size)),
      ),
    ),
    ratio('SQS ×10 native ÷ BullMQ addBulk(10)', 'sqs.batch10.native', 'bullmq.bulk10', atLeast(3)),
    ratio(
      'SQS ×10 function ÷ BullMQ addBulk(10)',
      'sqs.batch10.function',
      'bullmq.bulk10',
      atLeast(2.5),
    ),
    ratio('SQS ×10 script ÷ BullMQ addBulk(10)', 'sqs.batch10.script', 'bullmq.bulk10', atLeast(2)),
    ratio(
      'SQS ×10 native ÷ raw pipeline ×10 of single EMQ.ENQUEUE',
      'sqs.batch10.native',
      'raw.pipe10.native',
      atLeast(1),
    ),
    judged(
      'server CPU per keyed job (SQS ×10 native) ÷ raw pipeline ×10 EMQ.ENQUEUE',
      serverCpu('sqs.batch10.native') / serverCpu('raw.pipe10.native'),
      atMost(1),
    ),
    ratio(
      'enqueueMany ×100 native ÷ BullMQ addBulk(100)',
      'lib.many100.native',
      'bullmq.bulk100',
      atLeast(4),
    ),
    ratio(
      'HTTP batch ×1000 (native) ÷ BullMQ addBulk(1000)',
      'http.batch1000.native',
      'bullmq.bulk1000',
      atLeast(4),
    ),
    ratio(
      'HTTP POST sequential (native) ÷ raw single EMQ.ENQUEUE',
      'http.post.native',
      'raw.single.native',
      atLeast(0.8),
    ),
  ];
  if (cases.some((c) => c.id === 'sqs.batch10.native.acks1')) {
    out.push(
      ratio(
        'EMQ_ACK_REPLICAS=1 ÷ 0, SQS ×10 native, one batch in flight',
        'sqs.batch10.native.acks1',
        'sqs.batch10.native.acks0',
        atLeast(0.8),
      ),
    );
  }
  out.push(
    judged(
      "memory per keyed job (SQS ×10 native) ÷ BullMQ's per job (addBulk(10))",
      memory('sqs.batch10.native') / memory('bullmq.bulk10'),
      atMost(1),
    ),
    judged(
      'cold process to first admission (SQS bundle) ÷ BullMQ producer',
      coldStarts.emq.median / coldStarts.bullmq.median,
      atMost(0.5),
    ),
  );
  for (const count of roundTrips) {
    out.push({
      target: `round trips per batch, ${count.what} (${count.family}), one node`,
      value: count.perBatch,
      shown: String(count.perBatch),
      goal: '= 1',
      met: count.perBatch === 1,
    });
  }
  // A cold container's checks: at most 3 commands per primary (one standalone primary here).
  for (const count of connects) {
    out.push({
      target: `commands of a fresh connect() (${count.family}), one primary`,
      value: commandsOf(count),
      shown: `${commandsOf(count)} in ${count.roundTrips} round trip${count.roundTrips === 1 ? '' : 's'}`,
      goal: '≤ 3',
      met: commandsOf(count) <= 3,
    });
  }

  // Reported: each family's cost per keyed admission on the server, and its memory.
  for (const family of FAMILIES) {
    const id = `sqs.batch10.${family}`;
    out.push(
      reported(
        `server µs per keyed admission, SQS ×10 (${family}): INFO cpu / commandstats`,
        serverCpu(id),
        `${serverCpu(id).toFixed(1)} / ${commandUs(id).toFixed(1)} µs`,
      ),
      reported(
        `memory per keyed job, SQS ×10 (${family}) ÷ BullMQ's per job`,
        memory(id) / memory('bullmq.bulk10'),
        `${Math.round(memory(id))} ÷ ${Math.round(memory('bullmq.bulk10'))} B`,
      ),
    );
  }
  out.push(
    reported(
      'client CPU µs per job: HTTP POST / library enqueue / raw single EMQ.ENQUEUE (native)',
      clientCpu('http.post.native'),
      [
        clientCpu('http.post.native'),
        clientCpu('lib.enqueue.native'),
        clientCpu('raw.single.native'),
      ]
        .map((us) => us.toFixed(1))
        .join(' / '),
    ),
    reported(
      'client CPU µs per job: SQS ×10 / enqueueMany ×10 keyed / raw pipeline ×10 (native)',
      clientCpu('sqs.batch10.native'),
      [
        clientCpu('sqs.batch10.native'),
        clientCpu('lib.many10keyed.native'),
        clientCpu('raw.pipe10.native'),
      ]
        .map((us) => us.toFixed(1))
        .join(' / '),
    ),
    ratio(
      'SQS ×10 native ÷ BullMQ addBulk(10), 8 in flight',
      'sqs.batch10.native.x8',
      'bullmq.bulk10.x8',
    ),
    ratio(
      'SQS ×10 native ÷ raw pipeline ×10, 8 in flight',
      'sqs.batch10.native.x8',
      'raw.pipe10.native.x8',
    ),
  );
  const eight = ['sqs.batch10.native.x8.acks0', 'sqs.batch10.native.x8.acks1'] as const;
  if (cases.some((c) => c.id === eight[1])) {
    out.push(ratio('EMQ_ACK_REPLICAS=1 ÷ 0, SQS ×10 native, 8 in flight', eight[1], eight[0]));
  }
  for (const [flight, zero, one] of [
    ['one batch', 'sqs.batch10.native.acks0', 'sqs.batch10.native.acks1'],
    ['8', ...eight],
  ] as const) {
    if (!cases.some((c) => c.id === one)) continue;
    out.push(
      reported(
        `EMQ_ACK_REPLICAS=1 vs 0, p99 batch latency, SQS ×10 native, ${flight} in flight`,
        p99(one) / p99(zero),
        `${p99(one).toFixed(2)} vs ${p99(zero).toFixed(2)} ms`,
      ),
    );
  }

  // Bundle size is reported, not judged: cold start is the goal.
  const iovalkey = bundles.find((b) => b.name === 'iovalkey');
  for (const bundle of bundles.filter((b) => b.bytes !== null)) {
    out.push(
      reported(
        `${bundle.name.toUpperCase()} bundle size (minified)`,
        bundle.bytes ?? 0,
        `${((bundle.bytes ?? 0) / KB).toFixed(1)} KB`,
      ),
    );
    if (iovalkey !== undefined) {
      const value = bundle.importMs.median / iovalkey.importMs.median;
      out.push(
        reported(
          `${bundle.name.toUpperCase()} bundle import ÷ import('iovalkey')`,
          value,
          `${value.toFixed(2)}×`,
        ),
      );
    }
  }
  return out;
}
