/**
 * The one room of admission (docs/wire.md, "The calls", "Idempotency records"). It takes requests
 * from any face, checks every one of them before any I/O (queue, id, caller-id age, key, size),
 * decides where each request's idempotency key comes from, opens the connection only when a request
 * is valid, and admits the valid ones with one call per queue (several admissions in it) and one
 * pipeline per node, WAIT at its end when acknowledgements are required. It returns one result per
 * request, in input order: the admitted job, or the EmqError that says why not (with the id it
 * concerns and whether it may have been written, so a face can tell a caller how to retry safely).
 */
import { hash, randomUUID } from 'node:crypto';
import type { Connection } from '../connection/connector.js';
import { healed, noteUse, whenReady } from '../connection/healing.js';
import { nodeNameOf } from '../connection/transport.js';
import { CALLER_ID, MINTED_ID } from '../families/family.js';
import {
  assertCallerIdTime,
  assertIdempotencyKey,
  checkedJobId,
  checkedQueue,
  type JobId,
  type KeyNamespace,
  type QueueName,
  recordField,
  trustedQueueKeys,
} from '../keyspace/keyspace.js';
import { classifyFailure, mendedByReconnecting, timedOut } from '../outcomes/outcome-rules.js';
import { EmqError, InvalidInputError, UnavailableError } from '../outcomes/outcomes.js';
import type { Config } from '../settings/config.js';
import { RECONNECT_WINDOWS, resendUntil } from '../settings/resend-span.js';
import {
  type AdmissionResult,
  type Admitted,
  admitRound,
  type Item,
  propose,
} from './admission-calls.js';
import { Attempts } from './attempts.js';

export interface EnqueueRequest {
  /** The queue: 1 to 64 of `A-Z a-z 0-9 . _ -`. */
  readonly queue: string;
  /** The caller's bytes, stored verbatim (a string is stored as UTF-8). */
  readonly payload: Uint8Array | string;
  /** The caller's own job id: the job gets it, and it is the request's key. Default: a minted id. */
  readonly id?: string | undefined;
  /** Maps every attempt of one request to one job while its record lives. Ignored with `id`. Default: none. */
  readonly idempotencyKey?: string | undefined;
  /**
   * The face the key came through (its namespace, docs/wire.md "Idempotency records"). Default
   * `http`.
   */
  readonly origin?: 'http' | 'sqs' | undefined;
  /** When the caller sent the request (SQS SentTimestamp): a caller id's age is judged from it. Default: the invocation's time. */
  readonly sentAtMs?: number | undefined;
  /** What a refused `id` should be told to do, where the face shows it. Default: mint one with `emq id`. */
  readonly idAdvice?: string | undefined;
}

/** What a face knows of its invocation's time, and wants to hear of what is sent. */
export interface Admitting {
  /**
   * When the invocation must have its answer (Date.now() ms): nothing is sent from then on, so
   * a face that answers at its deadline knows everything that may have been written. Default:
   * none (a call is sent again after a reconnect for at most the connect timeout).
   */
  readonly deadlineMs?: number | undefined;
  /**
   * Told each admission's index and id as it is sent (and sent again): what a face that
   * answers before the core returns names as possibly written. Default: none.
   */
  readonly onSend?: ((index: number, id: string) => void) | undefined;
  /**
   * Reconnect windows the core waits out for what a reconnect mends before it answers: 1 for a
   * caller that retries on its own soon after (told 503 with Retry-After), 2 for one whose retry
   * is costly (an SQS record waits out its visibility timeout). A second window starts only
   * while the resend span (src/settings/resend-span.ts) and the deadline leave it whole room.
   * Default: 1.
   */
  readonly reconnectWindows?: 1 | 2 | undefined;
}

/** The invocation a batch of requests belongs to. */
export interface Invocation extends Admitting {
  /** Its request id: a request without a key is keyed by it and its index (namespace `call`). Default: a random UUID. */
  readonly id?: string;
  /** The time checks are judged at. Default: `Date.now()`. */
  readonly nowMs?: number;
}

/** What admission needs: the limits it checks before any I/O, and the connection it opens after. */
export interface AdmissionTarget {
  readonly config: Config;
  /** The connection, opened only when some request is valid. */
  connection(): Promise<Connection>;
}

/**
 * A request whose queue a face checked where it entered (checkedQueue, in its path): the core
 * does not check it again. Every other field is checked here, as for any request.
 */
export interface CheckedRequest extends EnqueueRequest {
  readonly queue: QueueName;
}

/** Admits one job. Throws the EmqError when it is not admitted. */
export async function enqueue(
  target: Connection | AdmissionTarget,
  request: EnqueueRequest,
  invocation: Invocation = {},
): Promise<Admitted> {
  return theOne(await enqueueMany(target, [request], invocation));
}

/** `enqueue` of a request whose queue its face checked already. */
export async function enqueueChecked(
  target: Connection | AdmissionTarget,
  request: CheckedRequest,
  invocation: Invocation = {},
): Promise<Admitted> {
  const prepared = prepareChecked(target.config, [request], invocation);
  return theOne(await admitPrepared(target, prepared, invocation));
}

function theOne([result]: readonly AdmissionResult[]): Admitted {
  if (result instanceof EmqError) throw result;
  if (result === undefined) throw new UnavailableError('The request produced no result; retry it.');
  return result;
}

/** A request, or the fault a face found in its shape (passed through, in its place). */
export type RequestOrFault = EnqueueRequest | EmqError;

/** Requests checked and keyed, not yet sent: what `prepare` returns and `admitPrepared` sends. */
export interface Prepared {
  /** Every request's result so far: the faults, in their places; the rest still to come. */
  readonly results: readonly (AdmissionResult | undefined)[];
  /** The requests that are at fault, by index, for a face that refuses a whole batch for one. */
  readonly faults: readonly { readonly index: number; readonly error: EmqError }[];
  readonly items: readonly Item[];
  /** The items keyed by the invocation itself (no key, no id): only this call can have written them. */
  readonly ownKeys: ReadonlySet<number>;
}

/**
 * Checks every request without any I/O (queue, id and its age, key, payload size) and names
 * each one's idempotency key. A face that must refuse a whole batch when one item is at fault
 * reads `faults`; otherwise admitPrepared sends the valid ones.
 */
export function prepare(
  config: Config,
  requests: readonly RequestOrFault[],
  invocation: Invocation = {},
): Prepared {
  return prepareEach(config, requests, invocation, (request) => checkedQueue(request.queue));
}

/** `prepare` for requests whose queue their face checked already. */
export function prepareChecked(
  config: Config,
  requests: readonly (CheckedRequest | EmqError)[],
  invocation: Invocation = {},
): Prepared {
  return prepareEach(config, requests, invocation, (request) => request.queue);
}

function prepareEach<Request extends EnqueueRequest>(
  config: Config,
  requests: readonly (Request | EmqError)[],
  invocation: Invocation,
  queueOf: (request: Request) => QueueName,
): Prepared {
  const call = invocation.id ?? randomUUID();
  const nowMs = invocation.nowMs ?? Date.now();
  const results = new Array<AdmissionResult | undefined>(requests.length);
  const faults: { index: number; error: EmqError }[] = [];
  const items: Item[] = [];
  const ownKeys = new Set<number>();
  for (let index = 0; index < requests.length; index++) {
    const request = requests[index] as Request | EmqError;
    try {
      if (request instanceof EmqError) throw request;
      items.push(itemOf(request, queueOf(request), index, call, nowMs, config));
      if (request.id === undefined && request.idempotencyKey === undefined) ownKeys.add(index);
    } catch (error) {
      const fault = classifyFailure(error);
      results[index] = fault;
      faults.push({ index, error: fault });
    }
  }
  return { results, faults, items, ownKeys };
}

/**
 * Admits many jobs with as few round trips as the keyspace allows: one call per queue, one
 * pipeline per node. Returns one result per request, in input order; a request at fault is
 * refused without I/O and does not hold back the others.
 */
export function enqueueMany(
  target: Connection | AdmissionTarget,
  requests: readonly RequestOrFault[],
  invocation: Invocation = {},
): Promise<AdmissionResult[]> {
  return admitPrepared(target, prepare(target.config, requests, invocation), invocation);
}

/**
 * Sends what `prepare` checked; opens the connection only when something is to be sent. An
 * admission that fails in a way a reconnect mends (a connection closed while the container was
 * frozen, a silent node, a moved slot) is sent again, the same call under the same key, once
 * the connection is back: within each reconnect window for at most the connect timeout, never
 * past the deadline, and never past the resend span that its idempotency record outlives.
 */
export async function admitPrepared(
  target: Connection | AdmissionTarget,
  prepared: Prepared,
  admitting: Admitting = {},
): Promise<AdmissionResult[]> {
  const results = [...prepared.results] as AdmissionResult[];
  if (prepared.items.length === 0) return results;
  const { config } = target;
  const deadlineMs = admitting.deadlineMs ?? Number.POSITIVE_INFINITY;
  // Every window's sends keep to one span, counted from the first.
  const againUntil = Math.min(resendUntil(config, Date.now()), deadlineMs);
  const windows = Math.min(admitting.reconnectWindows ?? 1, RECONNECT_WINDOWS);
  let items = prepared.items;
  let earlier: readonly (AdmissionResult | undefined)[] = [];
  for (let window = 1; ; window++) {
    await inWindow(target, items, prepared.ownKeys, results, earlier, {
      deadlineMs,
      againUntil,
      onSend: admitting.onSend,
    });
    if (window >= windows) break;
    const again = items.filter((item) => {
      const result = results[item.index];
      return result instanceof EmqError && mendedByReconnecting(result);
    });
    const now = Date.now();
    if (again.length === 0 || now >= againUntil) break;
    // A window starts only with room for its whole wait and its last send's reply.
    if (deadlineMs - now < config.connectTimeoutMs + config.commandTimeoutMs) break;
    // What the earlier window may have written is this one's own (a duplicate of it is admitted).
    earlier = [...results];
    items = again;
  }
  return results;
}

/** When a window's sends must stop, and whom to tell of each send. */
interface WindowTimes {
  readonly deadlineMs: number;
  /** From when only an admission's first send may still go out. */
  readonly againUntil: number;
  readonly onSend: Admitting['onSend'];
}

/**
 * One reconnect window: sends the items (copies: they hold the round's state), and sends again
 * what a reconnect mends while the connection comes back within the connect timeout. Writes
 * each item's result, told what the earlier windows did (attempts.ts), into `results`.
 */
async function inWindow(
  target: Connection | AdmissionTarget,
  items: readonly Item[],
  ownKeys: ReadonlySet<number>,
  results: AdmissionResult[],
  earlier: readonly (AdmissionResult | undefined)[],
  times: WindowTimes,
): Promise<void> {
  let live = items.map((item) => ({ ...item }));
  let connection: Connection;
  try {
    connection = 'client' in target ? target : await target.connection();
  } catch (error) {
    const failure = classifyFailure(error);
    for (const item of live) results[item.index] = failure;
    return;
  }
  const { client, config } = connection;
  const { deadlineMs, againUntil, onSend } = times;
  const healUntil = Math.min(Date.now() + config.connectTimeoutMs, againUntil);
  const attempts = new Attempts(ownKeys, live, earlier);
  noteUse(client);
  for (const item of live) if (item.idSource === MINTED_ID) propose(connection, item);
  for (let attempt = 1; ; attempt++) {
    await whenReady(client, healUntil);
    let round: Item[] = live;
    // Past the resend span's sending time only an admission's first send may still go out.
    let sendUntil = attempt === 1 ? deadlineMs : againUntil;
    while (round.length > 0) {
      if (Date.now() >= sendUntil) {
        for (const item of round) results[item.index] = tooLate();
        break;
      }
      for (const item of round) onSend?.(item.index, item.id);
      round = await admitRound(connection, round, results);
      sendUntil = againUntil;
    }
    const mendable: Item[] = [];
    // A timed-out call is sent again only where the slot map, read again, names another node.
    const silent = new Map<Item, string>();
    for (const item of live) {
      const result = results[item.index] as AdmissionResult;
      attempts.note(item.index, result, item.idSource === MINTED_ID);
      if (!(result instanceof EmqError)) continue;
      if (mendedByReconnecting(result)) mendable.push(item);
      else if (client.isCluster && timedOut(result)) silent.set(item, nodeOf(client, item));
    }
    if (mendable.length + silent.size === 0 || attempt >= HEAL_ATTEMPTS) break;
    if (!(await healed(client, healUntil))) break;
    for (const [item, node] of silent) if (nodeOf(client, item) !== node) mendable.push(item);
    if (mendable.length === 0) break;
    live = mendable;
  }
  for (const item of items) {
    results[item.index] = attempts.settled(item.index, results[item.index] as AdmissionResult);
  }
}

function nodeOf(client: Connection['client'], item: Item): string {
  return nodeNameOf(client, trustedQueueKeys(item.queue).slot);
}

/** Sends of one admission in one reconnect window at most: the first, and two after a reconnect. */
const HEAL_ATTEMPTS = 3;

function tooLate(): EmqError {
  return new UnavailableError(
    'The request ran out of time before it was sent; nothing was written. Retry it.',
  );
}

/**
 * Checks one request whose queue is checked (before any I/O: docs/security.md) and names its
 * key. Throws InvalidInputError.
 */
function itemOf(
  request: EnqueueRequest,
  queue: QueueName,
  index: number,
  call: string,
  nowMs: number,
  config: Config,
): Item {
  const { id } = request;
  const payload = toBuffer(request.payload);
  if (payload.byteLength > config.maxPayloadBytes) {
    throw new InvalidInputError(
      'EMQ_PAYLOAD_TOO_LARGE',
      `The payload is ${payload.byteLength} bytes; the limit is ${config.maxPayloadBytes}. Send a smaller payload or store it elsewhere and enqueue a reference.`,
    );
  }
  let namespace: KeyNamespace;
  let key: string;
  let jobId = '' as JobId;
  if (id !== undefined) {
    jobId = checkedJobId(id, request.idAdvice);
    // Pending order is id order: a caller's id must not jump ahead of waiting jobs.
    assertCallerIdTime(id, config.callerIdMaxAgeMs, request.sentAtMs ?? nowMs, request.idAdvice);
    namespace = 'id';
    key = id;
  } else if (request.idempotencyKey !== undefined) {
    assertIdempotencyKey(request.idempotencyKey);
    namespace = request.origin ?? 'http';
    key = request.idempotencyKey;
  } else {
    // Without a key the request gets one of this invocation's: a call resent by the client
    // library then answers duplicate instead of writing a second job (docs/wire.md,
    // "Idempotency records").
    namespace = 'call';
    key = `${call}:${index}`;
  }
  return {
    index,
    queue,
    payload,
    idSource: id === undefined ? MINTED_ID : CALLER_ID,
    // A minted id is proposed before the first send (admission-calls.ts propose).
    id: jobId,
    digest: payloadDigest(payload),
    field: recordField(namespace, key),
    proposals: 0,
    loads: 0,
  };
}

/** The record's digest of a payload (docs/wire.md): 12 bytes of SHA-256, base64url. */
export function payloadDigest(payload: Buffer): string {
  return hash('sha256', payload, 'base64url').slice(0, 16);
}

function toBuffer(payload: Uint8Array | string): Buffer {
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  return Buffer.isBuffer(payload)
    ? payload
    : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
}
