/**
 * The body of `POST /queues/{queue}/jobs/batch` (SPEC §8a), checked as a whole before any
 * I/O: a body with one bad item is refused entirely (400, or 413 when only sizes are at
 * fault), and nothing is written. The problem names every item at fault, so a producer can
 * fix them all in one go.
 */
import {
  assertCallerIdTime,
  checkRequest,
  EmqError,
  type EnqueueRequest,
  InvalidInputError,
} from '../../src/index.js';
import { decodeBase64 } from '../shared/base64.js';

/** Most jobs in one batch request (the common limit among ingest APIs). */
export const MAX_BATCH_JOBS = 1_000;
/** Lambda's synchronous request limit: a larger body never reaches the function through API Gateway. */
export const MAX_BATCH_BODY_BYTES = 6 * 1024 * 1024;
/** Items named in one refusal; the count says how many more there were. */
const MAX_ITEMS_NAMED = 20;

/** The idempotency namespaces of SPEC §5; the core keys dedupe records by them. */
export type KeyNamespace = 'http' | 'sqs' | 'call';

/** An enqueue request with its key's namespace (the core's field; ignored by cores that lack it). */
export type NamespacedRequest = EnqueueRequest & { readonly keyNamespace?: KeyNamespace };

export interface BatchLimits {
  readonly maxPayloadBytes: number;
  readonly callerIdMaxAgeMs: number;
  readonly nowMs: number;
}

/** One item at fault, for the refusal's `items`. */
export interface ItemFault {
  readonly index: number;
  readonly code: string;
  readonly detail: string;
}

/** The whole-body refusal: its items say which jobs are at fault and why. */
export class BatchRefusal extends InvalidInputError {
  constructor(
    message: string,
    readonly items: readonly ItemFault[],
    readonly tooLarge: boolean,
  ) {
    super(tooLarge ? 'EMQ_PAYLOAD_TOO_LARGE' : 'EMQ_INVALID_REQUEST', message);
  }
}

const ITEM_FIELDS = new Set(['payload', 'encoding', 'id', 'idempotencyKey']);

/**
 * The requests of a batch body, in order. Items without `id` or `idempotencyKey` are keyed
 * by the invocation (`<requestId>:<index>`, namespace `call`), so a command the client
 * library resends can never make a second job. Throws BatchRefusal (or EMQ_INVALID_REQUEST).
 */
export function parseBatch(
  queue: string,
  body: Buffer,
  requestId: string,
  limits: BatchLimits,
): NamespacedRequest[] {
  if (body.byteLength > MAX_BATCH_BODY_BYTES) {
    throw new BatchRefusal(
      `The batch body is ${body.byteLength} bytes; the limit is ${MAX_BATCH_BODY_BYTES}. Split it into smaller batches.`,
      [],
      true,
    );
  }
  const jobs = jobsOf(body);
  const requests: NamespacedRequest[] = [];
  const faults: ItemFault[] = [];
  jobs.forEach((item, index) => {
    try {
      const request = requestOf(queue, item, index, requestId);
      checkRequest(request, limits);
      if (request.id !== undefined) {
        assertCallerIdTime(request.id, limits.callerIdMaxAgeMs, limits.nowMs);
      }
      requests.push(request);
    } catch (error) {
      if (!(error instanceof EmqError)) throw error;
      faults.push({ index, code: error.code, detail: error.message });
    }
  });
  if (faults.length > 0) {
    const named = faults.slice(0, MAX_ITEMS_NAMED);
    const more = faults.length - named.length;
    throw new BatchRefusal(
      `${faults.length} of ${jobs.length} jobs are invalid (items: ${named.map((f) => f.index).join(', ')}${more > 0 ? `, and ${more} more` : ''}); nothing was written. Fix them and send the batch again.`,
      named,
      faults.every((fault) => fault.code === 'EMQ_PAYLOAD_TOO_LARGE'),
    );
  }
  return requests;
}

function jobsOf(body: Buffer): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw malformed('The batch body is not JSON.');
  }
  const jobs = isObject(parsed) ? parsed.jobs : undefined;
  if (!Array.isArray(jobs) || Object.keys(parsed as object).length !== 1) {
    throw malformed('The batch body must be a JSON object with one field, "jobs": an array.');
  }
  if (jobs.length === 0 || jobs.length > MAX_BATCH_JOBS) {
    throw malformed(
      `The batch holds ${jobs.length} jobs; send 1 to ${MAX_BATCH_JOBS} per request.`,
    );
  }
  return jobs;
}

function requestOf(
  queue: string,
  item: unknown,
  index: number,
  requestId: string,
): NamespacedRequest {
  if (!isObject(item)) throw malformed('A job must be an object with a "payload".');
  const unknown = Object.keys(item).filter((name) => !ITEM_FIELDS.has(name));
  if (unknown.length > 0) {
    throw malformed(
      `Unknown field ${JSON.stringify(unknown[0]?.slice(0, 32))}: a job has payload, encoding, id, idempotencyKey.`,
    );
  }
  const { payload, encoding, id, idempotencyKey } = item;
  if (typeof payload !== 'string') throw malformed('"payload" must be a string.');
  if (encoding !== undefined && encoding !== 'utf8' && encoding !== 'base64') {
    throw malformed('"encoding" must be "utf8" (the default) or "base64".');
  }
  if (id !== undefined && typeof id !== 'string') throw malformed('"id" must be a string.');
  if (idempotencyKey !== undefined && typeof idempotencyKey !== 'string') {
    throw malformed('"idempotencyKey" must be a string.');
  }
  if (id !== undefined && idempotencyKey !== undefined) {
    throw malformed(
      'Give a job "id" or "idempotencyKey", not both: an id is its own idempotency key.',
    );
  }
  const bytes = encoding === 'base64' ? decodeBase64(payload) : Buffer.from(payload, 'utf8');
  if (bytes === undefined) {
    throw malformed('"payload" is not valid base64 (standard alphabet, padded).');
  }
  if (id !== undefined) return { queue, payload: bytes, id };
  if (idempotencyKey !== undefined) {
    return { queue, payload: bytes, idempotencyKey, keyNamespace: 'http' };
  }
  return {
    queue,
    payload: bytes,
    idempotencyKey: `${requestId}:${index}`,
    keyNamespace: 'call',
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(detail: string): InvalidInputError {
  return new InvalidInputError('EMQ_INVALID_REQUEST', detail);
}
