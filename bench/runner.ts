/**
 * Runs the cases in rounds: every case once per round, in an order that rotates, so that a
 * burst of load on the machine spreads over all cases instead of hitting one. Each case-round
 * starts on an empty dataset (the dataset's size would otherwise differ by position).
 */
import type { Valkey } from 'iovalkey';
import type { BenchCase, ServerName } from './case.js';
import { deltaOf, type ServerDelta, snapshot } from './server-stats.js';
import { type Spread, spreadOf } from './stats.js';

export interface RoundResult {
  readonly units: number;
  readonly jobs: number;
  readonly ms: number;
  readonly jobsPerSecond: number;
  readonly clientCpuUsec: number;
  /** The 99th percentile of one unit's (one call's, one batch's) latency in the round. */
  readonly p99Ms: number;
  readonly server: ServerDelta;
}

export interface CaseResult {
  readonly id: string;
  readonly label: string;
  readonly side: BenchCase['side'];
  readonly server: ServerName;
  readonly jobsPerUnit: number;
  readonly inFlight: number;
  readonly jobsPerSecond: Spread;
  readonly serverCpuUsPerJob: Spread;
  readonly commandUsPerJob: Spread;
  readonly clientCpuUsPerJob: Spread;
  readonly memoryBytesPerJob: Spread;
  /** Per round, the 99th percentile of a unit's latency. */
  readonly p99UnitMs: Spread;
  /** Commands the server counted per unit in the last round (nested ones included). */
  readonly callsPerUnit: Readonly<Record<string, number>>;
  /** commandstats µs per call of each of those commands, over every round. */
  readonly usecPerCall: Readonly<Record<string, number>>;
  readonly rounds: readonly RoundResult[];
}

export interface RunOptions {
  readonly rounds: number;
  /** How long one case-round should take. */
  readonly roundMs: number;
  /** Empties the dataset and puts back what every case needs (the fence). */
  readonly reset: () => Promise<void>;
  /** An admin client of each server: a case's INFO is read on its own server. */
  readonly admins: Readonly<Record<ServerName, Valkey>>;
  readonly progress: (line: string) => void;
}

const WARMUP_MS = 300;

export async function runCases(
  cases: readonly BenchCase[],
  options: RunOptions,
): Promise<CaseResult[]> {
  const unitsPerRound = new Map<string, number>();
  for (const benchCase of cases) {
    const rate = await warmUp(benchCase, options);
    const units = Math.max(8, Math.ceil((rate * options.roundMs) / 1000));
    unitsPerRound.set(benchCase.id, units);
    options.progress(`warm ${benchCase.id}: ${Math.round(rate * benchCase.jobsPerUnit)} jobs/s`);
  }
  const rounds = new Map<string, RoundResult[]>(cases.map((c) => [c.id, []]));
  for (let round = 0; round < options.rounds; round++) {
    const shift = (round * 7) % cases.length;
    const order = [...cases.slice(shift), ...cases.slice(0, shift)];
    for (const benchCase of order) {
      const result = await runRound(benchCase, unitsPerRound.get(benchCase.id) ?? 8, options);
      rounds.get(benchCase.id)?.push(result);
    }
    options.progress(`round ${round + 1}/${options.rounds} done`);
  }
  return cases.map((benchCase) => summarize(benchCase, rounds.get(benchCase.id) ?? []));
}

/** Runs the case until it has run for WARMUP_MS; answers units per second. */
async function warmUp(benchCase: BenchCase, options: RunOptions): Promise<number> {
  let units = 16;
  for (;;) {
    await options.reset();
    const unit = await benchCase.round(units);
    const started = performance.now();
    await runUnits(unit, units, benchCase.inFlight ?? 1, []);
    const ms = performance.now() - started;
    if (ms >= WARMUP_MS) return (units * 1000) / ms;
    units *= 2;
  }
}

async function runRound(
  benchCase: BenchCase,
  units: number,
  options: RunOptions,
): Promise<RoundResult> {
  await options.reset();
  const unit = await benchCase.round(units);
  const admin = options.admins[benchCase.server ?? 'module'];
  const before = await snapshot(admin);
  const cpuBefore = process.cpuUsage();
  const latencies: number[] = [];
  const started = performance.now();
  await runUnits(unit, units, benchCase.inFlight ?? 1, latencies);
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const after = await snapshot(admin);
  const jobs = units * benchCase.jobsPerUnit;
  return {
    units,
    jobs,
    ms,
    jobsPerSecond: (jobs * 1000) / ms,
    clientCpuUsec: cpu.user + cpu.system,
    p99Ms: percentile(latencies, 0.99),
    server: deltaOf(before, after, benchCase.topLevel),
  };
}

/** Runs the units, `inFlight` at a time, and pushes each unit's latency (ms) to `latencies`. */
async function runUnits(
  unit: (i: number) => Promise<unknown>,
  units: number,
  inFlight: number,
  latencies: number[],
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < units) {
      const i = next++;
      const started = performance.now();
      await unit(i);
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

/** The nearest-rank percentile `q` (0..1) of the values. */
function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
}

function summarize(benchCase: BenchCase, rounds: readonly RoundResult[]): CaseResult {
  const per = (pick: (round: RoundResult) => number): Spread =>
    spreadOf(rounds.map((round) => pick(round) / round.jobs));
  const last = rounds[rounds.length - 1];
  const callsPerUnit: Record<string, number> = {};
  if (last !== undefined) {
    for (const [name, calls] of Object.entries(last.server.calls)) {
      callsPerUnit[name] = Math.round((calls / last.units) * 100) / 100;
    }
  }
  const usec: Record<string, number> = {};
  const calls: Record<string, number> = {};
  for (const round of rounds) {
    for (const [name, count] of Object.entries(round.server.calls)) {
      calls[name] = (calls[name] ?? 0) + count;
      usec[name] = (usec[name] ?? 0) + (round.server.usec[name] ?? 0);
    }
  }
  const usecPerCall = Object.fromEntries(
    Object.entries(calls).map(([name, count]) => [
      name,
      Math.round(((usec[name] ?? 0) / count) * 100) / 100,
    ]),
  );
  return {
    id: benchCase.id,
    label: benchCase.label,
    side: benchCase.side,
    server: benchCase.server ?? 'module',
    jobsPerUnit: benchCase.jobsPerUnit,
    inFlight: benchCase.inFlight ?? 1,
    jobsPerSecond: spreadOf(rounds.map((round) => round.jobsPerSecond)),
    serverCpuUsPerJob: per((round) => round.server.cpuUsec),
    commandUsPerJob: per((round) => round.server.commandUsec),
    clientCpuUsPerJob: per((round) => round.clientCpuUsec),
    memoryBytesPerJob: per((round) => round.server.memoryBytes),
    p99UnitMs: spreadOf(rounds.map((round) => round.p99Ms)),
    callsPerUnit,
    usecPerCall,
    rounds,
  };
}
