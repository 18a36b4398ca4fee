/**
 * What became of each record, and the batch response that follows from it. Only the records
 * SQS must deliver again are batch item failures; everything else counts as handled.
 */
import type { SQSBatchResponse } from 'aws-lambda';
import type { Admitted } from '../../src/admission/admission-calls.js';
import type { EmqError } from '../../src/outcomes/outcomes.js';

export type SqsRecordDisposition =
  /** Enqueued, or a duplicate of a job already admitted: handled. */
  | { readonly kind: 'admitted'; readonly admitted: Admitted }
  /** A permanent failure, now in the DLQ with its reason: handled. */
  | { readonly kind: 'dead-lettered'; readonly error: EmqError }
  /** A retryable failure: SQS delivers it again. */
  | { readonly kind: 'retry'; readonly error: EmqError }
  /** A permanent failure that could not reach a DLQ (none configured, or the send failed). */
  | { readonly kind: 'undelivered'; readonly error: EmqError; readonly reason: UndeliveredReason }
  /** FIFO: an earlier record of its message group failed, so this one was not attempted. */
  | { readonly kind: 'skipped' };

export type UndeliveredReason = 'no-dlq' | 'dlq-send-failed';

export type DispositionKind = SqsRecordDisposition['kind'];

/** True when SQS must deliver the record again. */
export function mustRetry(disposition: SqsRecordDisposition): boolean {
  const { kind } = disposition;
  return kind === 'retry' || kind === 'undelivered' || kind === 'skipped';
}

/**
 * The partial batch response. A batch whose every record must be retried lists every record
 * (it does not throw): SQS treats both alike for the messages, and a thrown error would add a
 * stack trace to the logs and count as a function error on top of the face's own metrics.
 * Every failure names its record: a record without a messageId (undefined here) was
 * dead-lettered before anything was written (batch.ts), so it is never one to retry.
 */
export function batchResponse(
  messageIds: readonly (string | undefined)[],
  dispositions: readonly SqsRecordDisposition[],
): SQSBatchResponse {
  return {
    batchItemFailures: messageIds.flatMap((itemIdentifier, index) => {
      const disposition = dispositions[index];
      const retried = disposition === undefined || mustRetry(disposition);
      return retried && itemIdentifier !== undefined ? [{ itemIdentifier }] : [];
    }),
  };
}
