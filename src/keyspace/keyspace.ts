/**
 * The keyspace (docs/wire.md, "Keys"): the only module that builds key strings. Every key of a
 * queue carries the queue as its hash tag, so one call's keys live on one cluster slot.
 * Validation happens here, before any I/O, and throws InvalidInputError. A check returns its
 * value branded (QueueName, JobId): the trusted builders take only branded values, so a value
 * is checked once, where it enters, and never again past it.
 */
import { hash } from 'node:crypto';
import calculateSlot from 'cluster-key-slot';
import { InvalidInputError } from '../outcomes/outcomes.js';
import { isJobId, jobIdTime } from './ids.js';

/**
 * The wire identity's key. Its own hash tag: every primary holds a node-local copy (docs/wire.md,
 * "The fence").
 */
export const wireKey = '{emq}:version';

export const MAX_QUEUE_BYTES = 64;
export const MAX_IDEMPOTENCY_KEY_BYTES = 256;
declare const checked: unique symbol;
/** A queue name that passed assertQueue: what the trusted builders take. */
export type QueueName = string & { readonly [checked]: 'queue' };
/** A job id that passed assertJobId, or one this host minted or read back. */
export type JobId = string & { readonly [checked]: 'job id' };

const QUEUE = /^[A-Za-z0-9._-]{1,64}$/;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,256}$/;

/**
 * Throws EMQ_INVALID_QUEUE unless `queue` is 1-64 bytes of `A-Z a-z 0-9 . _ -`, other than
 * `.` and `..`: those two are path segments to every URL parser, so a job's URL would not
 * name its queue.
 */
export function assertQueue(queue: unknown): asserts queue is string {
  if (typeof queue !== 'string' || !QUEUE.test(queue) || queue === '.' || queue === '..') {
    throw new InvalidInputError(
      'EMQ_INVALID_QUEUE',
      `Invalid queue name ${describe(queue)}: use 1 to ${MAX_QUEUE_BYTES} characters of A-Z a-z 0-9 . _ -, other than . and ..`,
    );
  }
}

/**
 * Throws EMQ_INVALID_ID unless `id` is `JOB` + 11 base62 digits below 2^64. `advice` ends the
 * message with what to do where it is shown (each face knows its own remedy).
 */
export function assertJobId(
  id: unknown,
  advice = 'Mint ids with `emq id` (or mintId) when you send the job.',
): asserts id is string {
  if (typeof id !== 'string' || !isJobId(id)) {
    throw new InvalidInputError(
      'EMQ_INVALID_ID',
      `Invalid job id ${describe(id)}: a job id is JOB followed by 11 characters of 0-9 A-Z a-z (14 in all) whose base62 value is below 2^64 (at most JOBLygHa16AHYF). ${advice}`,
    );
  }
}

/** The queue, checked (assertQueue) and branded for the trusted builders. */
export function checkedQueue(queue: unknown): QueueName {
  assertQueue(queue);
  return queue as QueueName;
}

/** The job id, checked (assertJobId, `advice` as there) and branded for the trusted builders. */
export function checkedJobId(id: unknown, advice?: string): JobId {
  assertJobId(id, advice);
  return id as JobId;
}

/** How far ahead of this host's clock a caller id may lie (clock skew between hosts). */
export const CALLER_ID_MAX_FUTURE_MS = 60_000;

/**
 * Throws EMQ_INVALID_ID when a caller-chosen id's time lies more than `maxAgeMs` before
 * `sentAtMs` (when the caller sent it) or more than a minute after it. Pending order is id
 * order, so an old id would jump ahead of every waiting job and a future one would wait behind
 * jobs not yet sent. `maxAgeMs` 0 turns the past check off. `id` must be valid (assertJobId).
 * `advice` ends the message with what to do where it is shown.
 */
export function assertCallerIdTime(
  id: string,
  maxAgeMs: number,
  sentAtMs: number,
  advice = 'Mint a fresh id (`emq id`) when you send the job.',
): void {
  const timeMs = jobIdTime(id).getTime();
  if (maxAgeMs > 0 && timeMs < sentAtMs - maxAgeMs) {
    throw new InvalidInputError(
      'EMQ_INVALID_ID',
      `Job id ${id} was minted at ${new Date(timeMs).toISOString()}, more than ${maxAgeMs} ms before it was sent; pending order is id order, so it would jump ahead of waiting jobs. ${advice}`,
    );
  }
  if (timeMs > sentAtMs + CALLER_ID_MAX_FUTURE_MS) {
    throw new InvalidInputError(
      'EMQ_INVALID_ID',
      `Job id ${id} lies in the future (${new Date(timeMs).toISOString()}); ids may be at most ${CALLER_ID_MAX_FUTURE_MS} ms ahead of when they are sent. ${advice}`,
    );
  }
}

/** Throws EMQ_INVALID_REQUEST unless `key` is 1 to 256 bytes of printable ASCII. */
export function assertIdempotencyKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key)) {
    throw new InvalidInputError(
      'EMQ_INVALID_REQUEST',
      `Invalid idempotency key: use 1 to ${MAX_IDEMPOTENCY_KEY_BYTES} printable ASCII characters without spaces`,
    );
  }
}

/** The job row: `emq:{q}:job:<id>`. */
export function jobKey(queue: string, id: string): string {
  return trustedJobKey(checkedQueue(queue), checkedJobId(id));
}

/** The pending set: `emq:{q}:pending`. */
export function pendingKey(queue: string): string {
  return trustedPendingKey(checkedQueue(queue));
}

/**
 * Where an idempotency key comes from (docs/wire.md, "Idempotency records"): the HTTP
 * Idempotency-Key header, the SQS messageId, a caller's own job id, or the invocation itself. One
 * face cannot claim another's.
 */
export type KeyNamespace = 'http' | 'sqs' | 'id' | 'call';

/**
 * `h` of a key (docs/wire.md, "Idempotency records"): base64url(sha256(`<namespace>:<key>`)), 43
 * characters.
 */
export function recordHash(namespace: KeyNamespace, key: string): string {
  return hash('sha256', `${namespace}:${key}`, 'base64url');
}

/** How many characters of `h` name a key's record in its record slot (132 bits). */
const RECORD_FIELD_LENGTH = 22;

/** A key's record field in its queue's slots: `h`'s first 22 characters (docs/wire.md). */
export function recordField(namespace: KeyNamespace, key: string): string {
  return recordHash(namespace, key).slice(0, RECORD_FIELD_LENGTH);
}

/** How many record slots a queue has (docs/wire.md). */
const RECORD_SLOTS = 4;

/** A queue's record slots `emq:{q}:dedupe:0` .. `:3`, where its idempotency records live. */
export function recordSlotKeys(queue: string): readonly string[] {
  return trustedRecordSlotKeys(checkedQueue(queue));
}

/** The cluster slot of a key: CRC16/XMODEM of its hash tag, mod 16384. */
export function slotOf(key: string): number {
  return calculateSlot(key);
}

/** The cluster slot every key of `queue` lives on. */
export function queueSlot(queue: string): number {
  return calculateSlot(trustedPendingKey(checkedQueue(queue)));
}

// The trusted builders skip validation: they take only what a check branded (checkedQueue,
// checkedJobId), so a face checks a value once, where it enters, before any I/O, and the
// rounds build several keys per request on the hot path without checking it again.

/** `emq:{q}:job:<id>` for a validated queue and id. */
export function trustedJobKey(queue: QueueName, id: JobId): string {
  return `emq:{${queue}}:job:${id}`;
}

/** `emq:{q}:pending` for a validated queue. */
export function trustedPendingKey(queue: QueueName): string {
  return `emq:{${queue}}:pending`;
}

/** The record slots of a validated queue. */
export function trustedRecordSlotKeys(queue: QueueName): readonly string[] {
  return Array.from({ length: RECORD_SLOTS }, (_, slot) => `emq:{${queue}}:dedupe:${slot}`);
}

/** What every admit call of a queue names: its slot, its pending set and its record slots. */
export interface QueueKeys {
  readonly slot: number;
  readonly pendingKey: string;
  readonly recordSlotKeys: readonly string[];
}

/** Enough queues for any deployment's working set; past it the cache starts over. */
const QUEUE_KEYS_CACHED = 1024;
const queueKeys = new Map<QueueName, QueueKeys>();

/**
 * A validated queue's fixed keys, built once per queue rather than once per call (five
 * strings and a CRC16 each time otherwise).
 */
export function trustedQueueKeys(queue: QueueName): QueueKeys {
  let found = queueKeys.get(queue);
  if (found === undefined) {
    if (queueKeys.size >= QUEUE_KEYS_CACHED) queueKeys.clear();
    const pendingKey = trustedPendingKey(queue);
    found = {
      slot: calculateSlot(pendingKey),
      pendingKey,
      recordSlotKeys: trustedRecordSlotKeys(queue),
    };
    queueKeys.set(queue, found);
  }
  return found;
}

/** Quotes user input for an error message without echoing anything long or unprintable. */
function describe(value: unknown): string {
  if (typeof value !== 'string') return `(${value === null ? 'null' : typeof value})`;
  if (value.length === 0) return '(empty)';
  const shown = JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  return value.length > 80 ? `${shown} (${value.length} characters)` : shown;
}
