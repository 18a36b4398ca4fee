/**
 * Logs and EMF metrics of the SQS face: one log line per record's disposition, one per batch,
 * and metrics per disposition and per batch. Payloads and bodies never appear; nor do attribute
 * values a caller sent that the core refused (they may be anything).
 *
 * The vocabulary is the HTTP face's: `queue`, `id`, and `outcome` = what became of the job
 * (`enqueued`, `duplicate`, or the error code); `disposition` says what became of the message
 * (admitted, dead-lettered, retry, undelivered, skipped). A record admitted is a DEBUG line:
 * at volume one INFO line per record costs more in CloudWatch Logs than the SQS requests.
 */

import { causeOf } from '../../src/outcomes/outcome-rules.js';
import type { EmqError } from '../../src/outcomes/outcomes.js';
import { type Fields, type Level, log, logs } from '../shared/log.js';
import { emitMetrics, metricsFields } from '../shared/metrics.js';
import { type DispositionKind, mustRetry, type SqsRecordDisposition } from './disposition.js';
import type { DeadLetterResult } from './dlq.js';
import { namesListed } from './dlq-attributes.js';

const FACE = 'sqs';

export interface SqsRecordReport {
  /** Undefined for a record whose messageId is not a text (event.ts). */
  readonly messageId: string | undefined;
  readonly disposition: SqsRecordDisposition;
  /** The DLQ send's result, for dead letters and failed sends. */
  readonly letter?: DeadLetterResult | undefined;
}

const LEVELS: Readonly<Record<DispositionKind, Level>> = {
  admitted: 'debug',
  'dead-lettered': 'warn',
  retry: 'warn',
  skipped: 'warn',
  // Without a working DLQ the record comes back until the source queue's redrive policy
  // moves it: an operator has to see it.
  undelivered: 'error',
};

export function reportSqsRecord({ messageId, disposition, letter }: SqsRecordReport): void {
  // A retry that cannot mend its cause (a configuration fault) is an error, said once by the
  // batch's line (reportBatch): a batch of 10,000 records makes one error line, not 10,000.
  const level = LEVELS[disposition.kind];
  // Most records are admitted: skip building a line that the level drops.
  if (!logs(level)) return;
  log(level, 'sqs record', {
    messageId,
    disposition: disposition.kind,
    ...detailOf(disposition, letter),
  });
}

function detailOf(disposition: SqsRecordDisposition, letter: DeadLetterResult | undefined): Fields {
  switch (disposition.kind) {
    case 'admitted':
      return {
        queue: disposition.admitted.queue,
        id: disposition.admitted.id,
        outcome: disposition.admitted.status,
      };
    case 'skipped':
      return { outcome: 'skipped', reason: 'an earlier record of its message group failed' };
    case 'undelivered':
      return {
        outcome: disposition.error.code,
        code: disposition.error.code,
        reason: disposition.reason,
        dlqError: letter?.failure,
        dlqErrorCode: letter?.failureCode,
        ...operatorFields(disposition.error),
      };
    default:
      return {
        outcome: disposition.error.code,
        code: disposition.error.code,
        retryable: disposition.error.retryable,
        droppedAttributes: letter?.dropped.length ? namesListed(letter.dropped) : undefined,
        ...(disposition.kind === 'retry' && !disposition.error.retryable
          ? { cause: causeOf(disposition.error).causeCode }
          : operatorFields(disposition.error)),
      };
  }
}

/** What an operator needs of a failure: the message where callers never see it, and its cause. */
function operatorFields(error: EmqError): Fields {
  const { causeCode, causeText } = causeOf(error);
  return { ...(error.operatorOnly ? { detail: error.message } : {}), cause: causeCode, causeText };
}

export interface BatchReport {
  readonly dispositions: readonly SqsRecordDisposition[];
  readonly fifo: boolean;
  readonly waves: number;
  readonly durationMs: number;
}

export function reportBatch({ dispositions, fifo, waves, durationMs }: BatchReport): void {
  const counts = new Map<string, { kind: DispositionKind; code: string; count: number }>();
  let failures = 0;
  for (const disposition of dispositions) {
    const code = 'error' in disposition ? disposition.error.code : 'none';
    const key = `${disposition.kind}:${code}`;
    const entry = counts.get(key);
    if (entry === undefined) counts.set(key, { kind: disposition.kind, code, count: 1 });
    else entry.count += 1;
    if (mustRetry(disposition)) failures += 1;
  }
  const fullyRetried = dispositions.length > 0 && failures === dispositions.length;
  const unmendable = dispositions.find(
    (disposition) => disposition.kind === 'retry' && !disposition.error.retryable,
  );
  const fields: Record<string, string | number | boolean | undefined> = {
    records: dispositions.length,
    batchItemFailures: failures,
    fifo,
    waves,
    durationMs,
  };
  for (const [key, { count }] of counts) fields[key] = count;
  if (unmendable !== undefined && 'error' in unmendable) {
    // Retried, as a server-side fault must be, but a retry cannot mend it (a configuration
    // fault such as NOPERM, or an unknown answer): an error, named once for the batch.
    Object.assign(fields, { code: unmendable.error.code, ...operatorFields(unmendable.error) });
  }
  log(
    unmendable !== undefined ? 'error' : fullyRetried ? 'warn' : 'info',
    'sqs batch',
    fields,
    metricsFields({ Face: FACE }, [
      { name: 'Batches', value: 1, unit: 'Count' },
      { name: 'BatchRecords', value: dispositions.length, unit: 'Count' },
      { name: 'BatchItemFailures', value: failures, unit: 'Count' },
      {
        name: 'AdmittedJobs',
        value: dispositions.filter((disposition) => disposition.kind === 'admitted').length,
        unit: 'Count',
      },
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
