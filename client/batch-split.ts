/**
 * A batch of any size as requests the service takes (SPEC §8a, §12a): at most 1,000 jobs and
 * 6 MiB of body each, the body measured as sent (UTF-8 JSON, its escaping and the base64 of
 * byte payloads included). Requests keep the input's order, so results come back in it.
 */
import type { BatchItem } from './contract.js';
import { type EmqClientError, tooLarge } from './errors.js';

/** The most jobs one batch request takes: a longer list is sent as several requests. */
export const MAX_BATCH_JOBS = 1_000;
/** The most bytes of one batch request's body: Lambda's synchronous invocation limit, 6 MiB. */
export const MAX_BATCH_BYTES = 6 * 1024 * 1024;

/** `{"jobs":[` and `]}`: what a body holds besides its items and the commas between them. */
const ENVELOPE_BYTES = Buffer.byteLength('{"jobs":[]}');

/** One item as its request's body holds it. */
export interface SerializedItem {
  readonly item: BatchItem;
  /** Its JSON text, as it is sent. */
  readonly json: string;
  readonly bytes: number;
}

export function serialized(item: BatchItem): SerializedItem {
  const json = JSON.stringify(item);
  return { item, json, bytes: Buffer.byteLength(json, 'utf8') };
}

/** The body of a request holding `items`: exactly the bytes `bodyBytes` counts. */
export function batchBody(items: readonly SerializedItem[]): Buffer {
  return Buffer.from(`{"jobs":[${items.map(({ json }) => json).join(',')}]}`, 'utf8');
}

/** The size of `batchBody(items)`, without making it. */
export function bodyBytes(items: readonly Pick<SerializedItem, 'bytes'>[]): number {
  const separators = Math.max(0, items.length - 1);
  return items.reduce((sum, { bytes }) => sum + bytes, ENVELOPE_BYTES + separators);
}

/**
 * The requests of a batch, as `[start, end)` ranges of `items` in order: each as long as the
 * limits allow. Throws EMQ_PAYLOAD_TOO_LARGE before anything is sent when one item alone
 * would make a body over the byte limit.
 */
export function requestRanges(
  items: readonly Pick<SerializedItem, 'bytes'>[],
  limits: { readonly jobs: number; readonly bytes: number } = {
    jobs: MAX_BATCH_JOBS,
    bytes: MAX_BATCH_BYTES,
  },
): [number, number][] {
  const ranges: [number, number][] = [];
  let start = 0;
  let size = ENVELOPE_BYTES;
  items.forEach(({ bytes }, index) => {
    if (ENVELOPE_BYTES + bytes > limits.bytes) throw alone(index, bytes, limits.bytes);
    const count = index - start;
    const grown = size + (count > 0 ? 1 : 0) + bytes;
    if (count === limits.jobs || grown > limits.bytes) {
      ranges.push([start, index]);
      start = index;
      size = ENVELOPE_BYTES + bytes;
    } else {
      size = grown;
    }
  });
  if (items.length > start) ranges.push([start, items.length]);
  return ranges;
}

function alone(index: number, bytes: number, limit: number): EmqClientError {
  return tooLarge(
    `Job ${index} of the batch is ${ENVELOPE_BYTES + bytes} bytes as a request body (its payload as JSON text, bytes as base64); a request carries at most ${limit}. Send a smaller payload, or store it elsewhere and enqueue its address.`,
    index,
  );
}
