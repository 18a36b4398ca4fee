/**
 * Admission (SPEC §5): enqueue, enqueueMany and readJob over a connected client. Each request
 * is a small flow of steps; rounds.ts sends the steps of a whole batch together.
 */
import { isJobId, jobIdAt } from './ids.js';
import {
  assertIdempotencyKey,
  assertJobId,
  assertQueue,
  idempotencyDigest,
  jobKey,
  trustedDedupeKey,
} from './keyspace.js';
import {
  ConflictError,
  classify,
  classifyFailure,
  EmqError,
  InvalidInputError,
  RefusedError,
  UnavailableError,
  type WriteStatus,
} from './outcomes.js';
import { type Flow, type Op, type Reply, type RoundTarget, runFlows } from './rounds.js';

export interface EnqueueRequest {
  /** The queue: 1 to 64 of `A-Z a-z 0-9 . _ -`. */
  readonly queue: string;
  /** The caller's bytes, stored verbatim (a string is stored as UTF-8). */
  readonly payload: Uint8Array | string;
  /** The caller's own job id: it is its own idempotency key. Default: a minted id. */
  readonly id?: string | undefined;
  /** Maps retries of one request to one job for the dedupe TTL. Ignored when `id` is given. */
  readonly idempotencyKey?: string | undefined;
  /**
   * With `idempotencyKey`: propose the same id on every attempt, derived from this time (ms)
   * and the key, instead of minting. `firstAttempt` says a previous attempt is unlikely (an
   * SQS first delivery), so the dedupe record and the write go out in one round trip.
   */
  readonly derive?: { readonly timeMs: number; readonly firstAttempt: boolean } | undefined;
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
  /** Told about surprises an operator should see (a second row taken back). */
  readonly onWarning: (event: string, fields: Readonly<Record<string, string>>) => void;
}

/** Bounded: each probe is a fresh id, so a long run of collisions means something is wrong. */
const MAX_PROBES = 4;

/** Admits one job. Throws an EmqError when it is not admitted. */
export async function enqueue(target: AdmissionTarget, request: EnqueueRequest): Promise<Admitted> {
  const [result] = await enqueueMany(target, [request]);
  if (result instanceof EmqError) throw result;
  if (result === undefined) throw new UnavailableError('The request produced no result; retry it.');
  return result;
}

/**
 * Admits many jobs with as few round trips as the keyspace allows: one pipeline per node per
 * step. Returns one result or EmqError per request, in input order; invalid requests are
 * refused without I/O and do not hold back the others.
 */
export function enqueueMany(
  target: AdmissionTarget,
  requests: readonly EnqueueRequest[],
): Promise<(Admitted | EmqError)[]> {
  return runFlows(
    target,
    requests.map((request) => admit(target, request)),
  );
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
 * Checks a request without any I/O: queue, id, idempotency key and payload size. The flows
 * run it first; a face may run it before it even opens a connection, so bad input is refused
 * while Valkey is down too. Throws InvalidInputError.
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

function* admit(target: AdmissionTarget, request: EnqueueRequest): Flow<Admitted> {
  checkRequest(request, target);
  const { queue, id, idempotencyKey, derive } = request;
  const payload = toBuffer(request.payload);
  if (id !== undefined) return yield* withCallerId(queue, id, payload);
  if (idempotencyKey !== undefined) {
    const digest = idempotencyDigest(idempotencyKey);
    const proposals = derive === undefined ? minted(target.mintId) : derived(derive.timeMs, digest);
    const dedupe = trustedDedupeKey(queue, digest);
    return yield* withKey(target, queue, dedupe, payload, proposals, derive?.firstAttempt);
  }
  return yield* withMintedId(target, queue, payload);
}

/** A caller's id is its own key: enqueued, duplicate, or a conflict if the payload differs. */
function* withCallerId(queue: string, id: string, payload: Buffer): Flow<Admitted> {
  const [reply] = yield [{ kind: 'enqueue', queue, id, payload }];
  if (written(reply) === 'enqueued') return { queue, id, status: 'enqueued' };
  if (yield* samePayload(queue, id, payload)) return { queue, id, status: 'duplicate' };
  throw new ConflictError(
    'EMQ_CONFLICT',
    `Job ${id} already exists in queue ${queue} with a different payload. Use a new id, or resend the original payload.`,
  );
}

/** No id, no key: mint one. A minted id that comes back duplicate was a collision: mint again. */
function* withMintedId(target: AdmissionTarget, queue: string, payload: Buffer): Flow<Admitted> {
  for (let probe = 0; probe < MAX_PROBES; probe++) {
    const id = target.mintId();
    const [reply] = yield [{ kind: 'enqueue', queue, id, payload }];
    if (written(reply) === 'enqueued') return { queue, id, status: 'enqueued' };
  }
  throw collisions();
}

/**
 * An idempotency key maps to one id through its dedupe record (`dedupe`, the record's key).
 * The first attempt either claims the record and writes in one round trip (optimistic) or
 * claims first and then writes the id the record yields (safe order).
 */
function* withKey(
  target: AdmissionTarget,
  queue: string,
  dedupe: string,
  payload: Buffer,
  proposals: Iterator<string>,
  optimistic: boolean | undefined,
): Flow<Admitted> {
  let proposal = next(proposals);
  const [claimReply, writeReply] = optimistic
    ? yield [
        { kind: 'claim', queue, dedupe, id: proposal },
        { kind: 'enqueue', queue, id: proposal, payload },
      ]
    : yield [{ kind: 'claim', queue, dedupe, id: proposal }];
  const stored = claimed(claimReply);

  if (stored !== null && stored !== proposal) {
    // An earlier attempt recorded another id: that id is the job. A row the optimistic write
    // just made under the proposal would be a second job, so it is taken back in the same trip.
    const tookBack = optimistic === true && written(writeReply) === 'enqueued';
    const [reply] = yield [
      { kind: 'enqueue', queue, id: stored, payload },
      ...(tookBack ? takeBack(queue, proposal) : []),
    ];
    if (tookBack) target.onWarning('second-row-removed', { queue, id: proposal, kept: stored });
    return yield* settleKeyed(queue, stored, payload, written(reply));
  }

  // This attempt holds the record for `proposal` (set now, or by an earlier attempt).
  let status = optimistic
    ? written(writeReply)
    : written((yield [enqueueOf(queue, proposal, payload)])[0]);
  for (let probe = 1; ; probe++) {
    if (status === 'enqueued' || stored === proposal) {
      return yield* settleKeyed(queue, proposal, payload, status);
    }
    // The record was new but the row existed: an expired record's replay (same payload)
    // or another request's id (a collision): then propose the next id and repoint the record.
    if (yield* samePayload(queue, proposal, payload))
      return { queue, id: proposal, status: 'duplicate' };
    if (probe >= MAX_PROBES) throw collisions();
    proposal = next(proposals);
    const [, reply] = yield [
      { kind: 'repoint', queue, dedupe, id: proposal },
      { kind: 'enqueue', queue, id: proposal, payload },
    ];
    status = written(reply);
  }
}

/** The id of a key's record is settled: a duplicate must carry the same payload. */
function* settleKeyed(
  queue: string,
  id: string,
  payload: Buffer,
  status: WriteStatus,
): Flow<Admitted> {
  if (status === 'enqueued' || (yield* samePayload(queue, id, payload))) {
    return { queue, id, status };
  }
  throw new ConflictError(
    'EMQ_IDEMPOTENCY_MISMATCH',
    `This idempotency key was already used for job ${id} with a different payload. Use a new key for a new request.`,
  );
}

/** True when the stored row holds `payload`, or is gone (consumed): nothing to compare. */
function* samePayload(queue: string, id: string, payload: Buffer): Flow<boolean> {
  const [reply] = yield [{ kind: 'readPayload', queue, id }];
  if (reply instanceof Error) throw classifyFailure(reply);
  return reply === null || (Buffer.isBuffer(reply) && reply.equals(payload));
}

function enqueueOf(queue: string, id: string, payload: Buffer): Op {
  return { kind: 'enqueue', queue, id, payload };
}

function takeBack(queue: string, id: string): Op[] {
  return [
    { kind: 'deleteRow', queue, id },
    { kind: 'unlist', queue, id },
  ];
}

function written(reply: Reply): WriteStatus {
  const outcome = classify(reply);
  if (outcome instanceof EmqError) throw outcome;
  return outcome;
}

function claimed(reply: Reply): string | null {
  if (reply === null) return null;
  if (typeof reply === 'string' && isJobId(reply)) return reply;
  if (typeof reply === 'string') {
    throw new RefusedError(
      'EMQ_UNKNOWN',
      'A dedupe record holds something that is not a job id; inspect the emq:{queue}:dedupe:* keys.',
    );
  }
  throw classifyFailure(reply);
}

function* minted(mintId: () => string): Iterator<string> {
  for (;;) yield mintId();
}

/**
 * Ids derived from a time and the key (its sha256 digest): every attempt proposes the same
 * sequence. The low 22 bits are the digest's first 22 bits.
 */
function* derived(timeMs: number, digest: Buffer): Iterator<string> {
  const low = digest.readUInt32BE(0) >>> 10;
  for (let probe = 0; ; probe++) yield jobIdAt(timeMs, low + probe);
}

function next(ids: Iterator<string>): string {
  const step = ids.next();
  if (step.done) throw collisions();
  return step.value;
}

function collisions(): UnavailableError {
  return new UnavailableError(
    'Could not find a free job id after several tries (id collisions); retry the request.',
  );
}

function toBuffer(payload: Uint8Array | string): Buffer {
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  return Buffer.isBuffer(payload)
    ? payload
    : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
}
