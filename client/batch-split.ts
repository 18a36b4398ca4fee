/**
 * A batch of any size as requests the service takes (README.md, "The HTTP face"; docs/client.md,
 * "EchoMqClient"): at most 1,000 jobs and 6 MiB of body each, the body measured as sent (UTF-8
 * JSON, its escaping and the base64 of byte payloads included). Requests keep the input's order, so
 * results come back in it.
 *
 * The body must also reach the function: Lambda takes at most 6 MiB of event per synchronous
 * invocation, and the event carries the body as a JSON string (each `"` and `\` escaped once
 * more) beside the request's headers and context. A request is therefore filled up to
 * `EVENT_BODY_BYTES` of the body as the event holds it, which keeps the body itself under 6 MiB.
 */
import type { BatchItem } from './contract.js';
import { type EmqClientError, tooLarge } from './errors.js';

/** The most jobs one batch request takes: a longer list is sent as several requests. */
export const MAX_BATCH_JOBS = 1_000;
/** The most bytes of one batch request's body: Lambda's synchronous invocation limit, 6 MiB. */
export const MAX_BATCH_BYTES = 6 * 1024 * 1024;
/** What the event's headers and request context may take of the 6 MiB, with room to spare. */
const EVENT_RESERVE_BYTES = 64 * 1024;
/** The most bytes a request's body may take in its event (escaped as a JSON string). */
export const EVENT_BODY_BYTES = MAX_BATCH_BYTES - EVENT_RESERVE_BYTES;

/** `{"jobs":[` and `]}`: what a body holds besides its items and the commas between them. */
const ENVELOPE = '{"jobs":[]}';

/** One item as its request's body holds it. */
export interface SerializedItem {
  readonly item: BatchItem;
  /** Its JSON text, as it is sent. */
  readonly json: string;
  /** Its size in the body (UTF-8). */
  readonly bytes: number;
  /** Its size in the event, where the body is a JSON string: each `"` and `\` one byte more. */
  readonly eventBytes: number;
}

export function serialized(item: BatchItem): SerializedItem {
  const json = JSON.stringify(item);
  const bytes = Buffer.byteLength(json, 'utf8');
  return { item, json, bytes, eventBytes: bytes + escapedAgain(json) };
}

/** How many characters of `text` a JSON string escapes (the body holds no control characters). */
function escapedAgain(text: string): number {
  let count = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 0x22 || code === 0x5c) count += 1;
  }
  return count;
}

const ENVELOPE_BYTES = Buffer.byteLength(ENVELOPE);
const ENVELOPE_EVENT_BYTES = ENVELOPE_BYTES + escapedAgain(ENVELOPE);

/** The body of a request holding `items`: exactly the bytes `bodyBytes` counts. */
export function batchBody(items: readonly SerializedItem[]): Buffer {
  return Buffer.from(`{"jobs":[${items.map(({ json }) => json).join(',')}]}`, 'utf8');
}

/** The size of `batchBody(items)`, without making it. */
export function bodyBytes(items: readonly SerializedItem[]): number {
  return items.reduce((sum, { bytes }) => sum + bytes, ENVELOPE_BYTES + commas(items.length));
}

/** The size of `batchBody(items)` as its event holds it (a JSON string), without making it. */
export function eventBodyBytes(items: readonly SerializedItem[]): number {
  const envelope = ENVELOPE_EVENT_BYTES + commas(items.length);
  return items.reduce((sum, { eventBytes }) => sum + eventBytes, envelope);
}

function commas(count: number): number {
  return Math.max(0, count - 1);
}

/**
 * The requests of a batch, as `[start, end)` ranges of `items` in order: each as long as the
 * limits allow (`bytes` counts the body as its event holds it). Throws EMQ_PAYLOAD_TOO_LARGE
 * before anything is sent when one item alone is over the byte limit.
 */
export function requestRanges(
  items: readonly SerializedItem[],
  limits: { readonly jobs: number; readonly bytes: number } = {
    jobs: MAX_BATCH_JOBS,
    bytes: EVENT_BODY_BYTES,
  },
): [number, number][] {
  const ranges: [number, number][] = [];
  let start = 0;
  let size = ENVELOPE_EVENT_BYTES;
  items.forEach(({ eventBytes }, index) => {
    if (ENVELOPE_EVENT_BYTES + eventBytes > limits.bytes) throw alone(index, limits.bytes);
    const count = index - start;
    const grown = size + (count > 0 ? 1 : 0) + eventBytes;
    if (count === limits.jobs || grown > limits.bytes) {
      ranges.push([start, index]);
      start = index;
      size = ENVELOPE_EVENT_BYTES + eventBytes;
    } else {
      size = grown;
    }
  });
  if (items.length > start) ranges.push([start, items.length]);
  return ranges;
}

function alone(index: number, limit: number): EmqClientError {
  return tooLarge(
    `Job ${index} of the batch is too large for a request: its payload as JSON text (bytes as base64), escaped once more in the function's event, is over ${limit} bytes. Send a smaller payload, or store it elsewhere and enqueue its address.`,
    index,
  );
}
