/**
 * What the client checks before any I/O, as the service would (docs/wire.md, "Keys", "Job ids";
 * README.md, "The HTTP face"), by the patterns of the OpenAPI document and the core's id check: a
 * refusal here is the same refusal, without a round trip and without a retry.
 */
import { isJobId } from '../src/keyspace/ids.js';
import { IdempotencyKeyPattern, QueuePattern } from './contract.js';
import { type EmqClientError, invalid, tooLarge } from './errors.js';

/** A job's payload: text (sent as UTF-8) or bytes, byte for byte. */
export type Payload = string | Uint8Array;

/**
 * The service's payload cap: the default and bounds of its `maxPayloadBytes` setting. The
 * service's settings table decides them; the client keeps this copy so that its bundle holds
 * none of the server's tables, and a unit test
 * (test/unit/client-payload-cap.test.ts) fails the moment the two differ.
 */
export const PAYLOAD_CAP = {
  env: 'EMQ_MAX_PAYLOAD_BYTES',
  default: 262_144,
  bounds: { min: 0, max: 6 * 1024 * 1024 },
} as const;

/** The `maxPayloadBytes` option, or the service's default; throws EMQ_INVALID_CONFIG out of bounds. */
export function payloadLimit(value: number = PAYLOAD_CAP.default): number {
  if (
    !Number.isInteger(value) ||
    value < PAYLOAD_CAP.bounds.min ||
    value > PAYLOAD_CAP.bounds.max
  ) {
    throw invalid(
      'EMQ_INVALID_CONFIG',
      `maxPayloadBytes must be a whole number from ${PAYLOAD_CAP.bounds.min} to ${PAYLOAD_CAP.bounds.max} (got ${value}): give the service's ${PAYLOAD_CAP.env}.`,
    );
  }
  return value;
}

/** The payload's size in bytes, as the service counts it (text as UTF-8). */
export function payloadBytes(payload: Payload): number {
  return typeof payload === 'string' ? Buffer.byteLength(payload, 'utf8') : payload.byteLength;
}

/** Refuses a payload over `limit` bytes (the client's `maxPayloadBytes`) with 413. */
export function checkPayload(payload: Payload, limit: number, index?: number): void {
  const bytes = payloadBytes(payload);
  if (bytes > limit) {
    throw tooLarge(
      `${jobOf(index)}The payload is ${bytes} bytes; the limit is ${limit} (the client's maxPayloadBytes, which should be the service's EMQ_MAX_PAYLOAD_BYTES). Send a smaller payload, or store it elsewhere and enqueue its address.`,
      index,
    );
  }
}

export function checkQueue(queue: string): void {
  if (!QueuePattern.test(queue) || queue === '.' || queue === '..') {
    throw invalid(
      'EMQ_INVALID_QUEUE',
      `Invalid queue name ${JSON.stringify(queue.slice(0, 80))}: use 1 to 64 characters of A-Z a-z 0-9 . _ -, other than . and ..`,
    );
  }
}

export function checkId(id: string, index?: number): void {
  if (!isJobId(id)) {
    throw invalid(
      'EMQ_INVALID_ID',
      `${jobOf(index)}Invalid job id ${JSON.stringify(id.slice(0, 40))}: an id is JOB + 11 base62 digits; mint one with mintId or \`emq id\`, or leave it out to have one minted.`,
    );
  }
}

export function checkKey(key: string, index?: number): void {
  if (!IdempotencyKeyPattern.test(key)) {
    throw invalid(
      'EMQ_INVALID_REQUEST',
      `${jobOf(index)}Invalid idempotency key: use 1 to 256 printable ASCII characters without spaces.`,
    );
  }
}

export function bothGiven(index?: number): EmqClientError {
  return invalid(
    'EMQ_INVALID_REQUEST',
    `${jobOf(index)}Give an id or an idempotencyKey, not both: an id is its own idempotency key.`,
  );
}

function jobOf(index: number | undefined): string {
  return index === undefined ? '' : `Job ${index} of the batch: `;
}
