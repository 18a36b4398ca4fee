/**
 * An SQS batch, end to end and free of Lambda: records to requests, one core call per wave
 * (a standard queue's batch is one wave), permanent failures to the DLQ, and the partial batch
 * response. FIFO: a record that must be retried stops its message group; the group's later
 * records are not attempted. A permanent failure the DLQ accepted counts as handled and its
 * group goes on, as SQS's own redrive would move it aside.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type AdmissionTarget, enqueueMany } from '../../src/admission/admission.js';
import { EmqError, InvalidInputError } from '../../src/outcomes/outcomes.js';
import { log, oneWrite } from '../shared/log.js';
import { batchResponse, mustRetry, type SqsRecordDisposition } from './disposition.js';
import { type DeadLetter, type DeadLetterResult, type DlqSender, sendDeadLetters } from './dlq.js';
import { messageIdOf, sqsRecordsOf } from './event.js';
import { requestOf } from './record.js';
import { reportBatch, reportSqsRecord } from './report.js';
import { orderingGroup, wavesOf } from './waves.js';

export interface SqsBatchDeps {
  /** The container's configuration and its Valkey connection, opened when a record needs it. Required. */
  readonly admission: AdmissionTarget;
  /** Sends dead letters (an SQSClient). Required; unused without EMQ_DLQ_URL. */
  readonly sqs: DlqSender;
  /** When the batch's answer is due (Date.now() ms): nothing is sent from then on. Default: none. */
  readonly deadlineMs?: number;
}

export async function handleSqsBatch(
  event: SQSEvent,
  deps: SqsBatchDeps,
): Promise<SQSBatchResponse> {
  const started = performance.now();
  const { config } = deps.admission;
  // Throws, before any I/O, for an event that is not an SQS event (event.ts).
  const records = sqsRecordsOf(event);
  const messageIds = records.map(messageIdOf);
  const groups = records.map(orderingGroup);
  const dispositions = new Array<SqsRecordDisposition>(records.length);
  const letters = new Map<number, DeadLetterResult>();
  const stopped = new Set<string>();
  let wavesRun = 0;

  // Throws, before anything is written, unless the DLQ took every record without a messageId.
  await deadLetterNameless(records, messageIds, deps, dispositions, letters);

  for (const wave of wavesOf(groups)) {
    const live = wave.filter((index) => {
      // Dead-lettered already, for want of a messageId.
      if (dispositions[index] !== undefined) return false;
      const group = groups[index];
      if (group === undefined || !stopped.has(group)) return true;
      dispositions[index] = { kind: 'skipped' };
      return false;
    });
    if (live.length === 0) continue;
    wavesRun += 1;
    // A record's retry waits out its visibility timeout: the core waits out a second
    // reconnect window for it first, so one thaw never costs a record that wait.
    const results = await enqueueMany(
      deps.admission,
      live.map((index) => requestOf(records[index] as SQSRecord, config.defaultQueue)),
      { deadlineMs: deps.deadlineMs, reconnectWindows: 2 },
    );
    const permanent: DeadLetter[] = [];
    live.forEach((index, at) => {
      const result = results[at];
      if (!(result instanceof EmqError)) {
        dispositions[index] = { kind: 'admitted', admitted: result as NonNullable<typeof result> };
      } else if (!result.messageFault) {
        // Only a record's own fault goes to the DLQ; every other failure is retried.
        dispositions[index] = { kind: 'retry', error: result };
      } else {
        permanent.push({ index, record: records[index] as SQSRecord, error: result });
      }
    });
    await deadLetter(permanent, deps, dispositions, letters);
    for (const index of live) {
      const group = groups[index];
      if (group !== undefined && mustRetry(dispositions[index] as SqsRecordDisposition))
        stopped.add(group);
    }
  }

  // The records' lines, the batch's line and its metric lines: one write to stdout.
  oneWrite(() => {
    records.forEach((_, index) => {
      reportSqsRecord({
        messageId: messageIds[index],
        disposition: dispositions[index] as SqsRecordDisposition,
        letter: letters.get(index),
      });
    });
    reportBatch({
      dispositions,
      fifo: groups.some((group) => group !== undefined),
      waves: wavesRun,
      durationMs: Math.round(performance.now() - started),
    });
  });
  return batchResponse(messageIds, dispositions);
}

/**
 * Records whose messageId is not a text (only a direct invoke sends them): an answer cannot
 * name one for a retry, so none may ever need one. They are refused as their own fault and sent to
 * the DLQ before anything is written; unless the DLQ confirmed every one of them, the whole
 * event is refused by a throw, with nothing written, and Lambda retries it whole.
 */
async function deadLetterNameless(
  records: readonly SQSRecord[],
  messageIds: readonly (string | undefined)[],
  deps: SqsBatchDeps,
  dispositions: SqsRecordDisposition[],
  letters: Map<number, DeadLetterResult>,
): Promise<void> {
  const nameless = messageIds.flatMap((id, index) => (id === undefined ? [index] : []));
  if (nameless.length === 0) return;
  const error = new InvalidInputError(
    'EMQ_INVALID_REQUEST',
    'The record has no messageId (a text): it could not be retried on its own, so it was not admitted.',
  );
  const permanent = nameless.map((index) => ({
    index,
    record: records[index] as SQSRecord,
    error,
  }));
  await deadLetter(permanent, deps, dispositions, letters);
  const kept = nameless.filter((index) => dispositions[index]?.kind !== 'dead-lettered');
  if (kept.length === 0) return;
  // An SDK error name or an SQS error code, or why no letter was made (dlq.ts): never caller input.
  const why = (letters.get(kept[0] as number)?.failure ?? 'no DLQ is set').slice(0, 64);
  const refusal = new InvalidInputError(
    'EMQ_INVALID_REQUEST',
    `${kept.length} of the event's records have no messageId and the DLQ did not take them (${why}): nothing was written; the event is refused whole, to come back whole.`,
  );
  log('error', 'sqs event refused', { code: refusal.code, detail: refusal.message });
  throw refusal;
}

async function deadLetter(
  permanent: readonly DeadLetter[],
  deps: SqsBatchDeps,
  dispositions: SqsRecordDisposition[],
  letters: Map<number, DeadLetterResult>,
): Promise<void> {
  if (permanent.length === 0) return;
  const { dlqUrl } = deps.admission.config;
  if (dlqUrl === undefined) {
    for (const { index, error } of permanent) {
      dispositions[index] = { kind: 'undelivered', error, reason: 'no-dlq' };
    }
    return;
  }
  // Never throws: a letter that cannot be made or sent is a result that says so (dlq.ts), and
  // this wave's records are written already.
  const results = await sendDeadLetters(deps.sqs, permanent, {
    url: dlqUrl,
    deadlineMs: deps.deadlineMs,
  });
  const byIndex = new Map(results.map((result) => [result.index, result]));
  for (const { index, error } of permanent) {
    const result = byIndex.get(index);
    if (result !== undefined) letters.set(index, result);
    dispositions[index] = result?.delivered
      ? { kind: 'dead-lettered', error }
      : { kind: 'undelivered', error, reason: 'dlq-send-failed' };
  }
}
