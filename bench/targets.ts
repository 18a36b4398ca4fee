/** The targets of the performance issue, as ratios of figures measured in the same run. */
import type { BundleFigures } from './bundles.js';
import type { ColdStartFigures } from './cold-start.js';
import type { RoundTripCount } from './round-trips.js';
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
  readonly bundles: readonly BundleFigures[];
  readonly coldStarts: ColdStartFigures;
}

interface Goal {
  readonly value: number;
  /** true: the value must not exceed the goal (a cost); false: must reach it (a rate). */
  readonly atMost: boolean;
}

const KB = 1000;

export function verdicts({ cases, roundTrips, bundles, coldStarts }: Figures): Verdict[] {
  const figure = (id: string, pick: (c: CaseResult) => number): number => {
    const found = cases.find((c) => c.id === id);
    return found === undefined ? Number.NaN : pick(found);
  };
  const rate = (id: string): number => figure(id, (c) => c.jobsPerSecond.median);
  const judged = (target: string, value: number, goal: Goal | undefined): Verdict => ({
    target,
    value,
    shown: `${value.toFixed(2)}×`,
    goal: goal === undefined ? 'report' : `${goal.atMost ? '≤' : '≥'} ${goal.value}`,
    met:
      goal === undefined
        ? null
        : Number.isFinite(value) && (goal.atMost ? value <= goal.value : value >= goal.value),
  });
  const ratio = (target: string, top: string, bottom: string, goal?: number): Verdict =>
    judged(
      target,
      rate(top) / rate(bottom),
      goal === undefined ? undefined : { value: goal, atMost: false },
    );
  const serverCpu = (id: string): number => figure(id, (c) => c.serverCpuUsPerJob.median);
  const commandUs = (id: string): number => figure(id, (c) => c.commandUsPerJob.median);
  const p99 = (id: string): number => figure(id, (c) => c.p99UnitMs.median);

  // Issue 14's table, row by row, in its order.
  const out: Verdict[] = [
    ratio('SQS ×10 native ÷ BullMQ addBulk(10)', 'sqs.batch10.native', 'bullmq.bulk10', 2.5),
    ratio(
      'SQS ×10 function family ÷ BullMQ addBulk(10)',
      'sqs.batch10.function',
      'bullmq.bulk10',
      2.0,
    ),
    ratio(
      'SQS ×10 native ÷ raw pipeline ×10 EMQ.ENQUEUE (no dedupe)',
      'sqs.batch10.native',
      'raw.pipe10.native',
      0.85,
    ),
    ratio(
      'SQS ×10 function family ÷ raw pipeline ×10 FCALL emq_enqueue (no dedupe)',
      'sqs.batch10.function',
      'raw.pipe10.function',
      0.85,
    ),
    judged(
      'server CPU µs per keyed job (SQS ×10 native) ÷ raw pipeline ×10 EMQ.ENQUEUE',
      serverCpu('sqs.batch10.native') / serverCpu('raw.pipe10.native'),
      { value: 1.15, atMost: true },
    ),
    judged(
      'command µs per keyed job (EMQ.ADMIT, SQS ×10) ÷ raw pipeline ×10 EMQ.ENQUEUE',
      commandUs('sqs.batch10.native') / commandUs('raw.pipe10.native'),
      undefined,
    ),
  ];
  for (const count of roundTrips.filter((c) => c.what.startsWith('SQS handler'))) {
    out.push({
      target: `round trips per batch, ${count.what} (${count.executor}), one node`,
      value: count.perBatch,
      shown: String(count.perBatch),
      goal: '= 1',
      met: count.perBatch === 1,
    });
  }
  out.push(
    judged(
      'cold process to first admission (SQS bundle) ÷ BullMQ producer cold start, wall',
      coldStarts.emq.median / coldStarts.bullmq.median,
      { value: 0.5, atMost: true },
    ),
  );
  // Issue 15: the price of EMQ_ACK_REPLICAS=1, a replica attached, same run, same server.
  for (const flight of ['', '.x8']) {
    const zero = `sqs.batch10.native${flight}.acks0`;
    const one = `sqs.batch10.native${flight}.acks1`;
    const label = flight === '' ? 'SQS ×10 native' : 'SQS ×10 native, 8 in flight';
    if (!cases.some((c) => c.id === one)) continue;
    out.push(ratio(`EMQ_ACK_REPLICAS 1 ÷ 0, jobs/s, ${label}`, one, zero));
    out.push({
      target: `EMQ_ACK_REPLICAS 1 vs 0, p99 batch latency, ${label}`,
      value: p99(one) / p99(zero),
      shown: `${p99(one).toFixed(2)} vs ${p99(zero).toFixed(2)} ms`,
      goal: 'report',
      met: null,
    });
  }
  out.push(
    ratio(
      'enqueueMany ×100 native ÷ BullMQ addBulk(100)',
      'lib.many100.native',
      'bullmq.bulk100',
      3.0,
    ),
    ratio('native ÷ function: enqueueMany ×100', 'lib.many100.native', 'lib.many100.function', 1.2),
    ratio('native ÷ function: enqueueMany ×10', 'lib.many10.native', 'lib.many10.function', 1.2),
    ratio('native ÷ function: SQS ×10', 'sqs.batch10.native', 'sqs.batch10.function', 1.2),
    ratio(
      'native ÷ function: SQS ×10, 8 in flight',
      'sqs.batch10.native.x8',
      'sqs.batch10.function.x8',
      1.2,
    ),
    ratio(
      'native ÷ function: raw pipeline ×10 (the server alone)',
      'raw.pipe10.native',
      'raw.pipe10.function',
    ),
    ratio('native ÷ function: enqueue, sequential', 'lib.enqueue.native', 'lib.enqueue.function'),
    ratio(
      'HTTP POST sequential ÷ raw single enqueue',
      'http.post.native',
      'raw.single.native',
      0.8,
    ),
  );
  const http = bundles.find((b) => b.name === 'http');
  const iovalkey = bundles.find((b) => b.name === 'iovalkey');
  if (http?.bytes != null) {
    out.push({
      target: 'HTTP bundle size (minified)',
      value: http.bytes,
      shown: `${(http.bytes / KB).toFixed(1)} KB`,
      goal: '≤ 150 KB',
      met: http.bytes <= 150 * KB,
    });
  }
  for (const bundle of bundles.filter((b) => b.bytes !== null)) {
    if (iovalkey === undefined) break;
    const value = bundle.importMs.median / iovalkey.importMs.median;
    out.push({
      target: `${bundle.name.toUpperCase()} bundle import ÷ import('iovalkey')`,
      value,
      shown: `${value.toFixed(2)}×`,
      goal: bundle.name === 'http' ? '≤ 1.3' : 'report',
      met: bundle.name === 'http' ? value <= 1.3 : null,
    });
  }
  out.push(
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
  return out;
}
