/**
 * Logs and EMF metrics of the SQS face: one log line per record outcome, one per batch, and
 * metrics per outcome and per batch. Payloads and bodies never appear; nor do attribute
 * values a caller sent that the core refused (they may be anything).
 *
 * The vocabulary is the HTTP face's: `queue`, `id`, and `outcome` = what became of the job
 * (`enqueued`, `duplicate`, or the error code); `disposition` says what became of the message
 * (admitted, dead-lettered, retry, undelivered, skipped). A record admitted is a DEBUG line:
 * at volume one INFO line per record costs more in CloudWatch Logs than the SQS requests.
 */

import type { EmqError } from '../../src/index.js';
import { causeOf } from '../../src/index.js';
import { type Fields, type Level, log, logs } from '../shared/log.js';
import { emitMetrics, metricsFields } from '../shared/metrics.js';
import type { DeadLetterResult } from './dlq.js';
import { mustRetry, type OutcomeKind, type RecordOutcome } from './outcome.js';

const FACE = 'sqs';

export interface RecordReport {
  readonly messageId: string;
  readonly outcome: RecordOutcome;
  /** The DLQ send's result, for dead letters and failed sends. */
  readonly letter?: DeadLetterResult | undefined;
}

const LEVELS: Readonly<Record<OutcomeKind, Level>> = {
  admitted: 'debug',
  'dead-lettered': 'warn',
  retry: 'warn',
  skipped: 'warn',
  // Without a working DLQ the record comes back until the source queue's redrive policy
  // moves it: an operator has to see it.
  undelivered: 'error',
};

export function reportRecord({ messageId, outcome, letter }: RecordReport): void {
  // A retry cannot mend a configuration fault or an unknown answer: an operator must see it.
  const level =
    outcome.kind === 'retry' && !outcome.error.retryable ? 'error' : LEVELS[outcome.kind];
  // Most records are admitted: skip building a line that the level drops.
  if (!logs(level)) return;
  log(level, 'sqs record', {
    messageId,
    disposition: outcome.kind,
    ...detailOf(outcome, letter),
  });
}

function detailOf(outcome: RecordOutcome, letter: DeadLetterResult | undefined): Fields {
  switch (outcome.kind) {
    case 'admitted':
      return {
        queue: outcome.admitted.queue,
        id: outcome.admitted.id,
        outcome: outcome.admitted.status,
      };
    case 'skipped':
      return { outcome: 'skipped', reason: 'an earlier record of its message group failed' };
    case 'undelivered':
      return {
        outcome: outcome.error.code,
        code: outcome.error.code,
        reason: outcome.reason,
        dlqError: letter?.failure,
        dlqErrorCode: letter?.failureCode,
        ...operatorFields(outcome.error),
      };
    default:
      return {
        outcome: outcome.error.code,
        code: outcome.error.code,
        retryable: outcome.error.retryable,
        droppedAttributes: letter?.dropped.length ? letter.dropped.join(',') : undefined,
        ...operatorFields(outcome.error),
      };
  }
}

/** What an operator needs of a failure: the message where callers never see it, and its cause. */
function operatorFields(error: EmqError): Fields {
  const { causeCode, causeText } = causeOf(error);
  return { ...(error.operatorOnly ? { detail: error.message } : {}), cause: causeCode, causeText };
}

export interface BatchReport {
  readonly outcomes: readonly RecordOutcome[];
  readonly fifo: boolean;
  readonly waves: number;
  readonly durationMs: number;
}

export function reportBatch({ outcomes, fifo, waves, durationMs }: BatchReport): void {
  const counts = new Map<string, { kind: OutcomeKind; code: string; count: number }>();
  let failures = 0;
  for (const outcome of outcomes) {
    const code = 'error' in outcome ? outcome.error.code : 'none';
    const key = `${outcome.kind}:${code}`;
    const entry = counts.get(key);
    if (entry === undefined) counts.set(key, { kind: outcome.kind, code, count: 1 });
    else entry.count += 1;
    if (mustRetry(outcome)) failures += 1;
  }
  const fullyRetried = outcomes.length > 0 && failures === outcomes.length;
  const fields: Record<string, string | number | boolean> = {
    records: outcomes.length,
    batchItemFailures: failures,
    fifo,
    waves,
    durationMs,
  };
  for (const [key, { count }] of counts) fields[key] = count;
  log(
    fullyRetried ? 'warn' : 'info',
    'sqs batch',
    fields,
    metricsFields({ Face: FACE }, [
      { name: 'Batches', value: 1, unit: 'Count' },
      { name: 'BatchRecords', value: outcomes.length, unit: 'Count' },
      { name: 'BatchItemFailures', value: failures, unit: 'Count' },
      { name: 'FullyRetriedBatches', value: fullyRetried ? 1 : 0, unit: 'Count' },
      { name: 'BatchDuration', value: durationMs, unit: 'Milliseconds' },
    ]),
  );
  for (const { kind, code, count } of counts.values()) {
    emitMetrics({ Face: FACE, Outcome: kind, Code: code }, [
      { name: 'Records', value: count, unit: 'Count' },
    ]);
  }
}
