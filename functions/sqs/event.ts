/**
 * What an SQS event must be before anything is written (docs/reliability.md, "The SQS face").
 * Lambda's event source always sends an object whose `Records` is an array of records, each
 * with a messageId; only a direct invoke can send less. An event that is not one is refused
 * whole, by a throw, before any I/O: nothing is written, and Lambda retries the whole batch.
 *
 * A record's messageId is what the answer names when the record must come back: a failure
 * without one (`{}`) makes Lambda fail the whole batch, and a record written once would be
 * written again. So a record whose messageId is not a text never reaches Valkey: it goes to
 * the DLQ before anything is written (batch.ts). A text is named as sent, whatever it holds:
 * SQS's are UUIDs, and a direct invoker gets back the id it sent.
 */
import type { SQSRecord } from 'aws-lambda';
import { InvalidInputError } from '../../src/outcomes/outcomes.js';

/** The event's records, or a throw (nothing written yet) when it is not an SQS event. */
export function sqsRecordsOf(event: unknown): readonly SQSRecord[] {
  const records =
    typeof event === 'object' && event !== null
      ? (event as { Records?: unknown }).Records
      : undefined;
  if (!Array.isArray(records)) {
    throw new InvalidInputError(
      'EMQ_INVALID_REQUEST',
      'The event is not an SQS event: it needs a Records array. Nothing was written.',
    );
  }
  const at = records.findIndex(
    (record) => typeof record !== 'object' || record === null || Array.isArray(record),
  );
  if (at !== -1) {
    throw new InvalidInputError(
      'EMQ_INVALID_REQUEST',
      `Record ${at} of the event is not an object. Nothing was written.`,
    );
  }
  return records as SQSRecord[];
}

/** The record's messageId when an answer can name it; undefined when it cannot. */
export function messageIdOf(record: SQSRecord): string | undefined {
  const { messageId } = record as { messageId?: unknown };
  return typeof messageId === 'string' ? messageId : undefined;
}
