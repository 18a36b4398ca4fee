/**
 * Dead letters: permanently failed records go to the DLQ with SendMessageBatch, the original
 * body and attributes intact and the reason added. A letter SQS did not confirm is reported
 * as not delivered, and its record is retried: nothing is dropped. A letter that could not
 * keep the record intact (a body that is not text, a lone surrogate that the SDK would send
 * as an escape, an attribute SQS cannot hold: a direct invoke's) is not sent at all, so it
 * never spoils the request of the letters beside it, and its record is retried too. Other
 * characters SQS refuses are SQS's to refuse: that letter alone fails.
 */
import { createHash } from 'node:crypto';
import type {
  MessageAttributeValue,
  SendMessageBatchCommand,
  SendMessageBatchCommandOutput,
  SendMessageBatchRequestEntry,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import type { EmqError } from '../../src/outcomes/outcomes.js';
import { deadLetterAttributes } from './dlq-attributes.js';
import { messageIdOf } from './event.js';
import { storable } from './sqs-text.js';

/** What the DLQ needs of an SQS client (an SQSClient satisfies it; tests fake it). */
export interface DlqSender {
  send(command: SendMessageBatchCommand): Promise<SendMessageBatchCommandOutput>;
}

export interface DeadLetter {
  /** The record's index in the batch. */
  readonly index: number;
  readonly record: SQSRecord;
  readonly error: EmqError;
}

export interface DlqOptions {
  /** The DLQ's URL. Required. A `.fifo` URL gets each record's message group. */
  readonly url: string;
  /** SQS's limits per SendMessageBatch: entries. Default 10. */
  readonly maxEntries?: number;
  /** SQS's limits per SendMessageBatch: bytes of bodies and attributes. Default 262144 (256 KiB). */
  readonly maxBytes?: number;
  /**
   * When the batch's answer is due (Date.now() ms): a send not answered by then counts as not
   * delivered, so the batch still answers (its record comes back) rather than running into the
   * invocation's timeout, which would fail records already written. Default: none.
   */
  readonly deadlineMs?: number | undefined;
}

export interface DeadLetterResult {
  readonly index: number;
  readonly delivered: boolean;
  /** Why SQS refused it (its error code, or the thrown error's name); undefined when delivered. */
  readonly failure: string | undefined;
  /**
   * The thrown error's code, for operators: the SDK's service code (`Code`), a network errno
   * (`code`, e.g. ECONNREFUSED) or the HTTP status. Undefined when SQS answered.
   */
  readonly failureCode?: string | undefined;
  /** Original attributes left out to fit the attribute limit. */
  readonly dropped: readonly string[];
}

interface Letter {
  readonly index: number;
  readonly entry: SendMessageBatchRequestEntry;
  readonly bytes: number;
  readonly dropped: readonly string[];
}

/** Sends the letters in as few SendMessageBatch calls as SQS's limits allow, side by side. */
export async function sendDeadLetters(
  sender: DlqSender,
  letters: readonly DeadLetter[],
  options: DlqOptions,
): Promise<DeadLetterResult[]> {
  const fifo = options.url.endsWith('.fifo');
  const built = letters.map((letter) => letterOf(letter, fifo));
  const unsent = built.filter((letter): letter is DeadLetterResult => !('entry' in letter));
  const chunks = chunksOf(
    built.filter((letter): letter is Letter => 'entry' in letter),
    options.maxEntries ?? 10,
    options.maxBytes ?? 262_144,
  );
  const results = await Promise.all(
    chunks.map((chunk) => sendChunk(sender, options.url, chunk, options.deadlineMs)),
  );
  return [...unsent, ...results.flat()].sort((a, b) => a.index - b.index);
}

/** The letter, or why it cannot be one that keeps the record intact (then it is not sent). */
function letterOf({ index, record, error }: DeadLetter, fifo: boolean): Letter | DeadLetterResult {
  const messageId = messageIdOf(record);
  const unsent = (failure: string): DeadLetterResult => ({
    index,
    delivered: false,
    failure,
    dropped: [],
  });
  const body: unknown = record.body;
  if (typeof body !== 'string' || !storable(body)) return unsent('InvalidMessageContents');
  const copied = deadLetterAttributes(record.messageAttributes, {
    code: error.code,
    detail: error.message,
    sourceMessageId: messageId,
  });
  // Attribute values with a lone surrogate are among those it cannot copy (message-attribute.ts).
  if (copied.uncopyable !== undefined) return unsent('InvalidMessageAttribute');
  const { attributes, dropped } = copied;
  const group: unknown = record.attributes?.MessageGroupId;
  const entry: SendMessageBatchRequestEntry = {
    Id: `r${index}`,
    MessageBody: body,
    MessageAttributes: attributes,
    // A FIFO DLQ needs a group; the source's keeps the letters of one group in order, and the
    // source messageId deduplicates a letter resent after a partial failure.
    ...(fifo
      ? {
          MessageGroupId: typeof group === 'string' ? group : 'emq-dead-letters',
          MessageDeduplicationId: deduplicationId(messageId, body),
        }
      : {}),
  };
  return { index, entry, bytes: sizeOf(body, attributes), dropped };
}

/**
 * SQS takes 1 to 128 printable ASCII characters as a deduplication id: an SQS messageId is
 * one. Any other (a direct invoke's, or none) is hashed with the body, so a resent letter
 * still deduplicates and two different records never do.
 */
function deduplicationId(messageId: string | undefined, body: string): string {
  if (messageId !== undefined && /^[\x21-\x7e]{1,128}$/.test(messageId)) return messageId;
  return createHash('sha256')
    .update(JSON.stringify([messageId ?? null, body]))
    .digest('hex');
}

/** SQS counts the body and every attribute's name, type and value toward a message's size. */
function sizeOf(body: string, attributes: Record<string, MessageAttributeValue>): number {
  let bytes = Buffer.byteLength(body, 'utf8');
  for (const [name, value] of Object.entries(attributes)) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value.DataType ?? '');
    bytes += value.StringValue !== undefined ? Buffer.byteLength(value.StringValue) : 0;
    bytes += value.BinaryValue?.byteLength ?? 0;
  }
  return bytes;
}

/**
 * Groups letters in order, each group within both limits. A letter too large on its own goes
 * alone: SQS refuses it and its record is retried, rather than it being dropped here.
 */
export function chunksOf<T extends { readonly bytes: number }>(
  items: readonly T[],
  maxEntries: number,
  maxBytes: number,
): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    if (current.length > 0 && (current.length >= maxEntries || bytes + item.bytes > maxBytes)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += item.bytes;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

async function sendChunk(
  sender: DlqSender,
  url: string,
  chunk: readonly Letter[],
  deadlineMs: number | undefined,
): Promise<DeadLetterResult[]> {
  let output: SendMessageBatchCommandOutput;
  let timer: NodeJS.Timeout | undefined;
  try {
    // The SDK loads on the first dead letter, not at cold start: most batches send none.
    const { SendMessageBatchCommand } = await import('@aws-sdk/client-sqs');
    // Nothing is sent once the answer is due, as no admission is (docs/reliability.md).
    if (deadlineMs !== undefined && Date.now() >= deadlineMs) throw deadlineReached();
    const sent = sender.send(
      new SendMessageBatchCommand({ QueueUrl: url, Entries: chunk.map((letter) => letter.entry) }),
    );
    output = await (deadlineMs === undefined
      ? sent
      : Promise.race([
          sent,
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(deadlineReached()), deadlineMs - Date.now());
          }),
        ]));
  } catch (error) {
    const failure = error instanceof Error ? error.name : 'Error';
    const failureCode = codeOf(error);
    return chunk.map(({ index, dropped }) => ({
      index,
      delivered: false,
      failure,
      failureCode,
      dropped,
    }));
  } finally {
    clearTimeout(timer);
  }
  const delivered = new Set((output.Successful ?? []).map((entry) => entry.Id));
  const refused = new Map((output.Failed ?? []).map((entry) => [entry.Id, entry.Code]));
  return chunk.map(({ index, entry, dropped }) => {
    // Neither confirmed nor refused counts as not delivered: only a confirmed letter is handled.
    const ok = delivered.has(entry.Id) && !refused.has(entry.Id);
    return {
      index,
      delivered: ok,
      failure: ok ? undefined : (refused.get(entry.Id) ?? 'NotConfirmed'),
      dropped,
    };
  });
}

function deadlineReached(): Error {
  return Object.assign(new Error('The batch is due: no answer from the DLQ in time.'), {
    name: 'DeadlineReached',
  });
}

/** The most specific code a thrown SDK or network error carries; never its message. */
function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const fields = error as {
    Code?: unknown;
    code?: unknown;
    $metadata?: { httpStatusCode?: unknown };
  };
  if (typeof fields.Code === 'string') return fields.Code;
  if (typeof fields.code === 'string') return fields.code;
  const status = fields.$metadata?.httpStatusCode;
  return typeof status === 'number' ? `HTTP ${status}` : undefined;
}
