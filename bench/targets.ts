/** The targets of the performance issue, as ratios of figures measured in the same run. */
import type { BundleFigures } from './bundles.js';
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
}

const KB = 1000;

export function verdicts({ cases, roundTrips, bundles }: Figures): Verdict[] {
  const rate = (id: string): number =>
    cases.find((c) => c.id === id)?.jobsPerSecond.median ?? Number.NaN;
  const ratio = (target: string, top: string, bottom: string, goal?: number): Verdict => {
    const value = rate(top) / rate(bottom);
    return {
      target,
      value,
      shown: `${value.toFixed(2)}×`,
      goal: goal === undefined ? 'report' : `≥ ${goal}`,
      met: goal === undefined ? null : value >= goal,
    };
  };
  const out: Verdict[] = [
    ratio('SQS ×10 native ÷ BullMQ addBulk(10)', 'sqs.batch10.native', 'bullmq.bulk10', 2.5),
    ratio(
      'SQS ×10 native ÷ raw pipeline ×10 EMQ.ENQUEUE',
      'sqs.batch10.native',
      'raw.pipe10.native',
      0.85,
    ),
  ];
  for (const count of roundTrips.filter((c) => c.what.includes('first deliveries'))) {
    out.push({
      target: `round trips per batch, ${count.what} (${count.executor}), one node`,
      value: count.perBatch,
      shown: String(count.perBatch),
      goal: '= 1',
      met: count.perBatch === 1,
    });
  }
  out.push(
    ratio(
      'enqueueMany ×100 native ÷ BullMQ addBulk(100)',
      'lib.many100.native',
      'bullmq.bulk100',
      3.0,
    ),
    ratio('native ÷ script: enqueueMany ×100', 'lib.many100.native', 'lib.many100.script', 1.2),
    ratio('native ÷ script: enqueueMany ×10', 'lib.many10.native', 'lib.many10.script', 1.2),
    ratio('native ÷ script: SQS ×10', 'sqs.batch10.native', 'sqs.batch10.script', 1.2),
    ratio(
      'native ÷ script: SQS ×10, 8 in flight',
      'sqs.batch10.native.x8',
      'sqs.batch10.script.x8',
      1.2,
    ),
    ratio(
      'native ÷ script: raw pipeline ×10 (the server alone)',
      'raw.pipe10.native',
      'raw.pipe10.script',
    ),
    ratio('native ÷ script: enqueue, sequential', 'lib.enqueue.native', 'lib.enqueue.script'),
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
