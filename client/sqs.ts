/**
 * The SQS face from the producer's side (README.md, "The SQS face"): `sqsEntry` makes a
 * SendMessageBatch entry with the `emq-*` attributes, and `sendJobs` sends entries in batches of
 * 10.
 *
 * Without `emq-job-id` the SQS function keys a job by the message's `messageId`, which SQS
 * mints anew for every send: a producer that resends after a timeout makes a second message
 * and so a second job. `sqsEntry` mints the job id when none is given, so every copy of an
 * entry, however often it is sent, is one job. The id is minted from this machine's clock, and
 * the service refuses ids more than a minute ahead of its own or older than a day (the age is
 * judged from when SQS received the message): send an entry soon after making it.
 */
import type {
  MessageAttributeValue,
  SendMessageBatchRequestEntry,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mintId } from '../src/keyspace/ids.js';
import { checkId, checkQueue, type Payload } from './checks.js';
import { invalid } from './errors.js';

export interface SqsJob {
  /** The queue (`emq-queue`). Default: the SQS function's default queue. */
  readonly queue?: string;
  /** Text, or bytes (sent as base64 with `emq-encoding: base64`). */
  readonly payload: Payload;
  /** The job id (`emq-job-id`). Default: a fresh one. */
  readonly id?: string;
  /** `base64`: the text payload is already base64 of the job's bytes. Default `utf8`. */
  readonly encoding?: 'utf8' | 'base64';
  /** A FIFO queue's message group (`MessageGroupId`). Default: none (a standard queue). */
  readonly groupId?: string;
  /** A FIFO queue's deduplication id. Default with `groupId`: the job id. */
  readonly deduplicationId?: string;
}

/** An entry `sqsEntry` made: its `Id` is the job id, unique within a batch. */
export type SqsEntry = SendMessageBatchRequestEntry & { Id: string; MessageBody: string };

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The SendMessageBatch entry for one job. Throws EmqClientError on a bad queue, id or base64. */
export function sqsEntry(job: SqsJob): SqsEntry {
  if (job.queue !== undefined) checkQueue(job.queue);
  const id = job.id ?? mintId();
  checkId(id);
  const bytes = typeof job.payload !== 'string';
  if (bytes && job.encoding === 'utf8') {
    throw invalid('EMQ_INVALID_REQUEST', 'A byte payload is sent as base64: leave `encoding` out.');
  }
  const body = bytes ? Buffer.from(job.payload as Uint8Array).toString('base64') : job.payload;
  const base64 = bytes || job.encoding === 'base64';
  if (base64 && !BASE64.test(body as string)) {
    throw invalid(
      'EMQ_INVALID_REQUEST',
      'The payload is not valid base64 (standard alphabet, padded): pass the bytes as a Uint8Array instead.',
    );
  }
  const attributes: Record<string, MessageAttributeValue> = { 'emq-job-id': text(id) };
  if (job.queue !== undefined) attributes['emq-queue'] = text(job.queue);
  if (base64) attributes['emq-encoding'] = text('base64');
  return {
    Id: id,
    MessageBody: body as string,
    MessageAttributes: attributes,
    ...(job.groupId === undefined
      ? {}
      : { MessageGroupId: job.groupId, MessageDeduplicationId: job.deduplicationId ?? id }),
  };
}

function text(value: string): MessageAttributeValue {
  return { DataType: 'String', StringValue: value };
}

export interface SendJobsOptions {
  /** SendMessageBatch calls per entry, the first included, for entries SQS reports failed on its side. Default 3. */
  readonly attempts?: number;
  /** The first wait between them in ms, doubled each time. Default 100. */
  readonly baseDelayMs?: number;
}

export interface SentJob {
  readonly Id: string;
  readonly MessageId: string;
  readonly jobId: string;
}

export interface UnsentJob {
  readonly Id: string;
  readonly Code: string;
  readonly Message?: string | undefined;
  /** True: the entry is at fault, and sending it again fails again. */
  readonly SenderFault: boolean;
  readonly jobId: string;
}

export interface SendJobsResult {
  readonly successful: SentJob[];
  /** Entries not sent: send them again as they are (the same job ids) and none becomes two jobs. */
  readonly failed: UnsentJob[];
}

/** SQS's limits on one SendMessageBatch: 10 entries, 1 MiB in all. */
const BATCH_ENTRIES = 10;
const BATCH_BYTES = 1024 * 1024;

/**
 * Sends `entries` to `queueUrl` in batches of at most 10 (and 1 MiB), in order; sends again
 * only the entries SQS reports failed on its own side, up to `attempts` times. A batch whose
 * call throws (after the SDK's own retries) has its entries reported failed, not thrown, so
 * the result always accounts for every entry.
 */
export async function sendJobs(
  sqs: SQSClient,
  queueUrl: string,
  entries: readonly SqsEntry[],
  options: SendJobsOptions = {},
): Promise<SendJobsResult> {
  const attempts = options.attempts ?? 3;
  const baseDelayMs = options.baseDelayMs ?? 100;
  const { SendMessageBatchCommand } = await import('@aws-sdk/client-sqs');
  const result: SendJobsResult = { successful: [], failed: [] };
  for (const batch of batches(entries)) {
    let pending = batch;
    for (let attempt = 1; pending.length > 0; attempt++) {
      const byId = new Map(pending.map((entry) => [entry.Id, entry]));
      const jobOf = (id: string | undefined) => jobIdOf(byId.get(id ?? ''));
      let answered: { Successful?: { Id?: string; MessageId?: string }[]; Failed?: Failure[] };
      try {
        answered = await sqs.send(
          new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending }),
        );
      } catch (error) {
        const named = error instanceof Error ? error : new Error(String(error));
        answered = {
          Failed: pending.map((entry) => ({
            Id: entry.Id,
            Code: named.name,
            Message: named.message,
            SenderFault: false,
          })),
        };
      }
      for (const sent of answered.Successful ?? []) {
        const Id = sent.Id ?? '';
        result.successful.push({ Id, MessageId: sent.MessageId ?? '', jobId: jobOf(Id) });
      }
      const again: SqsEntry[] = [];
      for (const failure of answered.Failed ?? []) {
        const entry = byId.get(failure.Id ?? '');
        if (entry !== undefined && failure.SenderFault !== true && attempt < attempts) {
          again.push(entry);
          continue;
        }
        result.failed.push({
          Id: failure.Id ?? '',
          Code: failure.Code ?? 'Unknown',
          Message: failure.Message,
          SenderFault: failure.SenderFault === true,
          jobId: jobOf(failure.Id),
        });
      }
      pending = again;
      if (pending.length > 0) await sleep(baseDelayMs * 2 ** (attempt - 1));
    }
  }
  return result;
}

interface Failure {
  Id?: string;
  Code?: string;
  Message?: string;
  SenderFault?: boolean;
}

/** Consecutive groups within SQS's limits; throws before any I/O on a repeated Id. */
function batches(entries: readonly SqsEntry[]): SqsEntry[][] {
  const seen = new Set<string>();
  const out: SqsEntry[][] = [];
  let current: SqsEntry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    if (seen.has(entry.Id)) {
      throw invalid(
        'EMQ_INVALID_REQUEST',
        `Entry ${entry.Id} is given twice: one job is one entry (SQS refuses a batch with a repeated Id).`,
      );
    }
    seen.add(entry.Id);
    const size = sizeOf(entry);
    if (current.length === BATCH_ENTRIES || (current.length > 0 && bytes + size > BATCH_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** What SQS counts toward a batch's size: the body and each attribute's name, type and value. */
function sizeOf(entry: SqsEntry): number {
  let size = Buffer.byteLength(entry.MessageBody);
  for (const [name, value] of Object.entries(entry.MessageAttributes ?? {})) {
    size += Buffer.byteLength(name) + Buffer.byteLength(value.DataType ?? '');
    size += Buffer.byteLength(value.StringValue ?? '') + (value.BinaryValue?.byteLength ?? 0);
  }
  return size;
}

function jobIdOf(entry: SqsEntry | undefined): string {
  return entry?.MessageAttributes?.['emq-job-id']?.StringValue ?? '';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
