/**
 * An SQS batch, end to end and free of Lambda: records to requests, one core call per wave
 * (a standard queue's batch is one wave), permanent failures to the DLQ, and the partial batch
 * response. FIFO: a record that must be retried stops its message group; the group's later
 * records are not attempted. A permanent failure the DLQ accepted counts as handled and its
 * group goes on, as SQS's own redrive would move it aside.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import {
  type Admitted,
  type Connection,
  checkRequest,
  classifyFailure,
  DEFAULTS,
  EmqError,
  type EnqueueRequest,
  enqueueMany,
  UnavailableError,
} from '../../src/index.js';
import { errorFields, log } from '../shared/log.js';
import { type DeadLetter, type DeadLetterResult, type DlqSender, sendDeadLetters } from './dlq.js';
import { batchResponse, mustRetry, type RecordOutcome } from './outcome.js';
import { requestOf } from './record.js';
import { reportBatch, reportRecord } from './report.js';
import { orderingGroup, wavesOf } from './waves.js';

export interface SqsBatchDeps {
  /** The Valkey connection; asked for only when a record needs it. A failed open retries those records. Required. */
  readonly connection: () => Promise<Connection>;
  /** Sends dead letters (an SQSClient). Required; unused without a DLQ URL. */
  readonly sqs: DlqSender;
}

export interface SqsBatchOptions {
  /** The queue of records without an `emq-queue` attribute. Default `default`. */
  readonly defaultQueue?: string;
  /** The DLQ for permanent failures. Default: none, so they become batch item failures. */
  readonly dlqUrl?: string | undefined;
  /** The payload cap, checked before any connection is opened. Default 262144 bytes. */
  readonly maxPayloadBytes?: number;
  /** `EMQ_CALLER_ID_MAX_AGE_MS` for `emq-job-id`; 0 turns the past check off. Default 0. */
  readonly callerIdMaxAgeMs?: number;
}

export async function handleSqsBatch(
  event: SQSEvent,
  deps: SqsBatchDeps,
  options: SqsBatchOptions = {},
): Promise<SQSBatchResponse> {
  const started = performance.now();
  const records = event.Records ?? [];
  const defaultQueue = options.defaultQueue ?? 'default';
  const groups = records.map(orderingGroup);
  const outcomes = new Array<RecordOutcome>(records.length);
  const letters = new Map<number, DeadLetterResult>();
  const stopped = new Set<string>();
  const connection = connecting(deps.connection);
  const callerIds = { maxAgeMs: options.callerIdMaxAgeMs ?? 0, nowMs: Date.now() };
  let wavesRun = 0;

  for (const wave of wavesOf(groups)) {
    const live = wave.filter((index) => {
      const group = groups[index];
      if (group === undefined || !stopped.has(group)) return true;
      outcomes[index] = { kind: 'skipped' };
      return false;
    });
    if (live.length === 0) continue;
    wavesRun += 1;

    const limits = { maxPayloadBytes: options.maxPayloadBytes ?? DEFAULTS.maxPayloadBytes };
    const results = await admit(
      live.map((index) =>
        checked(requestOf(records[index] as SQSRecord, defaultQueue, callerIds), limits),
      ),
      connection,
    );
    const permanent: DeadLetter[] = [];
    live.forEach((index, at) => {
      const result = results[at] ?? missing();
      if (!(result instanceof EmqError)) outcomes[index] = { kind: 'admitted', admitted: result };
      // SPEC §7: only a record's own fault goes to the DLQ; every other failure is retried.
      else if (!result.recordFault) outcomes[index] = { kind: 'retry', error: result };
      else permanent.push({ index, record: records[index] as SQSRecord, error: result });
    });
    await deadLetter(permanent, deps.sqs, options.dlqUrl, outcomes, letters);

    for (const index of live) {
      const group = groups[index];
      if (group !== undefined && mustRetry(outcomes[index] as RecordOutcome)) stopped.add(group);
    }
  }

  records.forEach((record, index) => {
    reportRecord({
      messageId: record.messageId,
      outcome: outcomes[index] as RecordOutcome,
      letter: letters.get(index),
    });
  });
  reportBatch({
    outcomes,
    fifo: groups.some((group) => group !== undefined),
    waves: wavesRun,
    durationMs: Math.round(performance.now() - started),
  });
  return batchResponse(
    records.map((record) => record.messageId),
    outcomes,
  );
}

/** The request, or why it cannot be one: judged without I/O, so even while Valkey is down. */
function checked(
  request: EnqueueRequest | EmqError,
  limits: { readonly maxPayloadBytes: number },
): EnqueueRequest | EmqError {
  if (request instanceof EmqError) return request;
  try {
    checkRequest(request, limits);
    return request;
  } catch (error) {
    return classifyFailure(error);
  }
}

/** One core call for the requests; records the face refused itself skip it. */
async function admit(
  requests: readonly (EnqueueRequest | EmqError)[],
  connection: () => Promise<Connection>,
): Promise<(Admitted | EmqError)[]> {
  const valid = requests.filter(
    (request): request is EnqueueRequest => !(request instanceof EmqError),
  );
  if (valid.length === 0) return [...requests] as EmqError[];
  let admitted: (Admitted | EmqError)[];
  try {
    admitted = await enqueueMany(await connection(), valid);
  } catch (error) {
    const failure = classifyFailure(error);
    admitted = valid.map(() => failure);
  }
  let next = 0;
  return requests.map((request) =>
    request instanceof EmqError ? request : (admitted[next++] ?? missing()),
  );
}

/**
 * A connection that cannot open says nothing about the records: even a permanent cause (a
 * bad setting, no module) must not send good messages to the DLQ. They are retried, and the
 * cause is logged once, with its own code, for operators.
 */
function connecting(open: () => Promise<Connection>): () => Promise<Connection> {
  let opened: Promise<Connection> | undefined;
  return () => {
    opened ??= Promise.resolve()
      .then(open)
      .catch((error: unknown) => {
        const cause = classifyFailure(error);
        log('error', 'sqs connection failed', { ...errorFields(cause), code: cause.code });
        throw cause.retryable
          ? cause
          : new UnavailableError('Valkey cannot be reached with this configuration; retry later.', {
              cause,
            });
      });
    return opened;
  };
}

/** A result the core did not give (a bug): retried rather than dead-lettered. */
function missing(): EmqError {
  return new UnavailableError('The record produced no result; retry it.');
}

async function deadLetter(
  permanent: readonly DeadLetter[],
  sqs: DlqSender,
  dlqUrl: string | undefined,
  outcomes: RecordOutcome[],
  letters: Map<number, DeadLetterResult>,
): Promise<void> {
  if (permanent.length === 0) return;
  if (dlqUrl === undefined) {
    for (const { index, error } of permanent) {
      outcomes[index] = { kind: 'undelivered', error, reason: 'no-dlq' };
    }
    return;
  }
  const results = await sendDeadLetters(sqs, permanent, { url: dlqUrl });
  const byIndex = new Map(results.map((result) => [result.index, result]));
  for (const { index, error } of permanent) {
    const result = byIndex.get(index);
    if (result !== undefined) letters.set(index, result);
    outcomes[index] = result?.delivered
      ? { kind: 'dead-lettered', error }
      : { kind: 'undelivered', error, reason: 'dlq-send-failed' };
  }
}
