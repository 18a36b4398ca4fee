/**
 * Admission (SPEC §5): every request is one server call. A caller's id is its own key
 * (`enqueue`); every other request carries an idempotency key (`admit`), so running a call
 * twice can never make a second job. A batch sends one pipeline per node per round; a round
 * after the first only carries the rare follow-ups (a minted id that was taken, or a caller
 * id's duplicate whose payload must be compared).
 */

import { Command } from 'iovalkey';
import {
  assertIdempotencyKey,
  assertJobId,
  assertQueue,
  jobKey,
  type KeyNamespace,
  trustedDedupeKey,
  trustedJobKey,
  trustedPendingKey,
} from './keyspace.js';
import { classifyFailure } from './outcome-rules.js';
import {
  ConflictError,
  EmqError,
  InvalidInputError,
  UnavailableError,
  UnconfirmedError,
  type WriteStatus,
} from './outcomes.js';
import { type Answer, type RoundTarget, type Sent, sendRound } from './rounds.js';

export interface EnqueueRequest {
  /** The queue: 1 to 64 of `A-Z a-z 0-9 . _ -`. */
  readonly queue: string;
  /** The caller's bytes, stored verbatim (a string is stored as UTF-8). */
  readonly payload: Uint8Array | string;
  /** The caller's own job id: it is its own idempotency key. Default: a minted id. */
  readonly id?: string | undefined;
  /**
   * Maps every attempt of one request to one job for the dedupe TTL. Ignored when `id` is
   * given. Default: a key of this call alone (a resend within the call stays harmless).
   */
  readonly idempotencyKey?: string | undefined;
  /** Where the key comes from, so one face cannot claim another's keys. Default `call`. */
  readonly keyNamespace?: KeyNamespace | undefined;
}

export interface Admitted {
  readonly queue: string;
  readonly id: string;
  readonly status: WriteStatus;
}

export interface JobRow {
  readonly state: string;
  readonly attempts: number;
  readonly payload: Buffer;
}

/** What admission needs of a connection (a Connection satisfies it). */
export interface AdmissionTarget extends RoundTarget {
  readonly maxPayloadBytes: number;
  /** Mints ids for requests that bring none. */
  readonly mintId: () => string;
}

/** Bounded: each proposal is a fresh id, so a long run of taken ids means something is wrong. */
const MAX_PROPOSALS = 4;

/** Admits one job. Throws an EmqError when it is not admitted. */
export async function enqueue(target: AdmissionTarget, request: EnqueueRequest): Promise<Admitted> {
  const [result] = await enqueueMany(target, [request]);
  if (result instanceof EmqError) throw result;
  if (result === undefined) throw new UnavailableError('The request produced no result; retry it.');
  return result;
}

/** A request on its way: what to send next, and how many ids it has proposed. */
interface Pending {
  readonly index: number;
  readonly queue: string;
  readonly payload: Buffer;
  /** The caller's id (enqueue), or undefined (admit). */
  readonly callerId: string | undefined;
  readonly dedupe: string;
  proposals: number;
  /** A caller id answered 0: compare its stored payload next round. */
  compare: boolean;
}

/**
 * Admits many jobs with as few round trips as the keyspace allows: one pipeline per node.
 * Returns one result or EmqError per request, in input order; invalid requests are refused
 * without I/O and do not hold back the others.
 */
export async function enqueueMany(
  target: AdmissionTarget,
  requests: readonly EnqueueRequest[],
): Promise<(Admitted | EmqError)[]> {
  const results = new Array<Admitted | EmqError>(requests.length);
  let live: Pending[] = [];
  requests.forEach((request, index) => {
    try {
      live.push(prepare(target, request, index));
    } catch (error) {
      results[index] = classifyFailure(error);
    }
  });
  const ttl = String(target.dedupeTtlMs);
  while (live.length > 0) {
    const round = live.map((item) => sentOf(target, item, ttl));
    const answers = await sendRound(target, round);
    const next: Pending[] = [];
    live.forEach((item, at) => {
      const sent = round[at] as Sent & { readonly id: string };
      const outcome = settle(item, sent.id, answers[at] as Answer);
      if (outcome === undefined) next.push(item);
      else results[item.index] = outcome;
    });
    live = next;
  }
  return results;
}

/** Reads a job row back, or null when there is none. */
export async function readJob(
  target: Pick<RoundTarget, 'client'>,
  queue: string,
  id: string,
): Promise<JobRow | null> {
  const key = jobKey(queue, id);
  let row: Record<string, Buffer>;
  try {
    row = await target.client.hgetallBuffer(key);
  } catch (error) {
    throw classifyFailure(error);
  }
  const { state, attempts, payload } = row;
  if (state === undefined || payload === undefined) return null;
  return { state: state.toString(), attempts: Number(attempts?.toString() ?? 0), payload };
}

/**
 * Checks a request without any I/O: queue, id, idempotency key and payload size. Admission
 * runs it first; a face may run it before it even opens a connection, so bad input is
 * refused while Valkey is down too. Throws InvalidInputError.
 */
export function checkRequest(
  request: EnqueueRequest,
  limits: { readonly maxPayloadBytes: number },
): void {
  assertQueue(request.queue);
  if (request.id !== undefined) assertJobId(request.id);
  else if (request.idempotencyKey !== undefined) assertIdempotencyKey(request.idempotencyKey);
  const size =
    typeof request.payload === 'string'
      ? Buffer.byteLength(request.payload)
      : request.payload.byteLength;
  if (size > limits.maxPayloadBytes) {
    throw new InvalidInputError(
      'EMQ_PAYLOAD_TOO_LARGE',
      `The payload is ${size} bytes; the limit is ${limits.maxPayloadBytes}. Send a smaller payload or store it elsewhere and enqueue a reference.`,
    );
  }
}

function prepare(target: AdmissionTarget, request: EnqueueRequest, index: number): Pending {
  checkRequest(request, target);
  const { queue, id } = request;
  // Without a key the request gets one of its own: a call resent by the client library then
  // answers duplicate instead of writing a second job.
  const key = request.idempotencyKey ?? target.mintId();
  const namespace =
    request.idempotencyKey === undefined ? 'call' : (request.keyNamespace ?? 'call');
  return {
    index,
    queue,
    payload: toBuffer(request.payload),
    callerId: id,
    dedupe: id === undefined ? trustedDedupeKey(queue, namespace, key) : '',
    proposals: 0,
    compare: false,
  };
}

function sentOf(target: AdmissionTarget, item: Pending, ttl: string): Sent & { id: string } {
  const { queue, payload, callerId } = item;
  if (callerId !== undefined && item.compare) {
    const command = new Command('hget', [trustedJobKey(queue, callerId), 'payload'], {
      replyEncoding: null,
    });
    return { queue, command, writes: false, id: callerId };
  }
  const jobKey = (id: string) => trustedJobKey(queue, id);
  const pendingKey = trustedPendingKey(queue);
  if (callerId !== undefined) {
    const call = { jobKey: jobKey(callerId), pendingKey, id: callerId, payload };
    return { queue, command: target.executor.enqueue(call), writes: true, id: callerId };
  }
  item.proposals += 1;
  const id = target.mintId();
  const call = { jobKey: jobKey(id), pendingKey, dedupeKey: item.dedupe, id, payload, ttlMs: ttl };
  return { queue, command: target.executor.admit(call), writes: true, id };
}

/** The request's result from its answer, or undefined when it needs another round. */
function settle(item: Pending, sentId: string, answer: Answer): Admitted | EmqError | undefined {
  const { queue } = item;
  const { reply } = answer;
  if (reply instanceof Error) return classifyFailure(reply);
  const done = (id: string, status: WriteStatus): Admitted | EmqError =>
    answer.confirmed ? { queue, id, status } : unconfirmed(queue, id);

  if (item.callerId !== undefined) {
    const id = item.callerId;
    if (item.compare) {
      // The row is gone (consumed) or holds this payload: the same job, answered again.
      if (reply === null || (Buffer.isBuffer(reply) && reply.equals(item.payload))) {
        return { queue, id, status: 'duplicate' };
      }
      return new ConflictError(
        'EMQ_CONFLICT',
        `Job ${id} already exists in queue ${queue} with a different payload. Use a new id, or resend the original payload.`,
      );
    }
    if (reply === 1) return done(id, 'enqueued');
    if (reply === 0) {
      item.compare = true;
      return undefined;
    }
    return classifyFailure(reply);
  }

  const [status, id] = Array.isArray(reply) ? reply : [];
  if (typeof id !== 'string') return classifyFailure(reply);
  if (status === 1) return done(id, 'enqueued');
  if (status === 0) return done(id, 'duplicate');
  if (status === -1) {
    return new ConflictError(
      'EMQ_IDEMPOTENCY_MISMATCH',
      `This idempotency key was already used for job ${id} with a different payload. Use a new key for a new request.`,
    );
  }
  if (status === 2 && id === sentId) {
    if (item.proposals < MAX_PROPOSALS) return undefined;
    return new UnavailableError(
      'Could not find a free job id after several tries (id collisions); retry the request.',
    );
  }
  return classifyFailure(reply);
}

function unconfirmed(queue: string, id: string): UnconfirmedError {
  return new UnconfirmedError(
    id,
    `Job ${id} of queue ${queue} was written but not yet confirmed by enough replicas; retry with the same key (or PUT this id).`,
  );
}

function toBuffer(payload: Uint8Array | string): Buffer {
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  return Buffer.isBuffer(payload)
    ? payload
    : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
}
