/**
 * The body of `POST /queues/{queue}/jobs/batch` (README.md, "The HTTP face"), read for its shape
 * only: JSON, UTF-8, `{"jobs": [...]}` of 1 to 1,000 items with known fields and decodable
 * payloads. Each item becomes a request for the core, or the fault its shape has; the core judges
 * the rest (ids, keys, sizes) before any I/O, and the face refuses the whole body if any item is at
 * fault.
 */
import { isUtf8 } from 'node:buffer';
import {
  type CheckedRequest,
  type EnqueueRequest,
  type Prepared,
  prepareChecked,
} from '../../src/admission/admission.js';
import type { QueueName } from '../../src/keyspace/keyspace.js';
import { EmqError, InvalidInputError } from '../../src/outcomes/outcomes.js';
import type { Config } from '../../src/settings/config.js';
import { decodeBase64 } from '../shared/base64.js';
import { MAX_REQUEST_BYTES } from './event.js';
import { type JsonFault, type JsonPath, jsonFaults } from './strict-json.js';

/** Most jobs in one batch request (the common limit among ingest APIs). */
export const MAX_BATCH_JOBS = 1_000;
/** The most bytes of a batch body: any request's (event.ts refuses a larger body before it is read). */
export const MAX_BATCH_BODY_BYTES = MAX_REQUEST_BYTES;
/** Items named in one refusal; the count says how many more there were. */
export const MAX_ITEMS_NAMED = 20;

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
    tooLarge: boolean,
  ) {
    super(tooLarge ? 'EMQ_PAYLOAD_TOO_LARGE' : 'EMQ_INVALID_REQUEST', message);
  }
}

const ITEM_FIELDS = new Set(['payload', 'encoding', 'id', 'idempotencyKey']);

/** What a batch item's refused `id` should do. */
const ITEM_ID_ADVICE =
  'Leave "id" out to have the service mint one, or mint one with `emq id`. To key the item by your own identifier, give it as "idempotencyKey" instead of "id" (an Idempotency-Key header is refused on a batch).';

/**
 * The body checked whole, before any I/O: its shape here, every item by the core (`prepare`),
 * keyed by the invocation. Throws BatchRefusal naming every item at fault; nothing is sent.
 */
export function checkedBatch(
  queue: QueueName,
  body: Buffer,
  config: Config,
  invocation: { readonly id: string; readonly nowMs?: number },
): Prepared {
  const requests = parseBatch(queue, body);
  const prepared = prepareChecked(config, requests, invocation);
  const faults = [...prepared.faults];
  for (const fault of sharedKeyFaults(requests)) {
    if (!faults.some(({ index }) => index === fault.index)) faults.push(fault);
  }
  if (faults.length > 0) {
    throw batchRefusal(
      faults.sort((a, b) => a.index - b.index),
      requests.length,
    );
  }
  return prepared;
}

/**
 * Items of one body that share an id, or an idempotencyKey, with different payloads
 * (README.md, "The HTTP face"): a key is one job, so such a body is malformed, each of those items
 * named. With equal payloads the items stay: the later one answers as the duplicate of the earlier.
 */
function sharedKeyFaults(
  requests: readonly (EnqueueRequest | EmqError)[],
): { readonly index: number; readonly error: InvalidInputError }[] {
  const byKey = new Map<string, { index: number; request: EnqueueRequest }[]>();
  requests.forEach((request, index) => {
    if (request instanceof EmqError) return;
    const key =
      request.id !== undefined
        ? `id ${request.id}`
        : request.idempotencyKey === undefined
          ? undefined
          : `key ${request.idempotencyKey}`;
    if (key === undefined) return;
    const same = byKey.get(key);
    if (same === undefined) byKey.set(key, [{ index, request }]);
    else same.push({ index, request });
  });
  const faults: { index: number; error: InvalidInputError }[] = [];
  for (const same of byKey.values()) {
    const [first] = same;
    if (first === undefined || same.every(({ request }) => samePayload(request, first.request))) {
      continue;
    }
    const field = first.request.id === undefined ? 'idempotencyKey' : 'id';
    const items = same.map(({ index }) => index).join(', ');
    for (const { index } of same) {
      faults.push({
        index,
        error: malformed(
          `Items ${items} share one "${field}" with different payloads: one ${field} is one job. Give each job its own ${field}, or send the job once.`,
        ),
      });
    }
  }
  return faults;
}

function samePayload(a: EnqueueRequest, b: EnqueueRequest): boolean {
  return Buffer.from(a.payload).equals(Buffer.from(b.payload));
}

/** The body's items as requests (or their shape faults), in order. Throws BatchRefusal. */
export function parseBatch(queue: QueueName, body: Buffer): (CheckedRequest | EmqError)[] {
  // Decoding replaces bytes that are not UTF-8 with U+FFFD: a payload would be stored changed.
  if (!isUtf8(body)) throw notUtf8(body);
  return jobsOf(body).map((item) => {
    try {
      return requestOf(queue, item);
    } catch (error) {
      if (error instanceof InvalidInputError) return error;
      throw error;
    }
  });
}

/** The refusal of a body with faults, naming every item at fault (the first ones). */
export function batchRefusal(
  faults: readonly { readonly index: number; readonly error: InvalidInputError | Error }[],
  total: number,
): BatchRefusal {
  const named = faults.slice(0, MAX_ITEMS_NAMED).map(({ index, error }) => ({
    index,
    code: 'code' in error && typeof error.code === 'string' ? error.code : 'EMQ_INVALID_REQUEST',
    detail: error.message,
  }));
  const more = faults.length - named.length;
  return new BatchRefusal(
    `${faults.length} of ${total} jobs are invalid (items: ${named.map((f) => f.index).join(', ')}${more > 0 ? `, and ${more} more` : ''}); nothing was written. Fix them and send the batch again.`,
    named,
    named.every((fault) => fault.code === 'EMQ_PAYLOAD_TOO_LARGE'),
  );
}

function jobsOf(body: Buffer): unknown[] {
  const text = body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw malformed('The batch body is not JSON.');
  }
  const faults = jsonFaults(text);
  if (faults.length > 0) {
    const count = isObject(parsed) && Array.isArray(parsed.jobs) ? parsed.jobs.length : 0;
    throw strictRefusal(faults, count);
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

/**
 * The refusal of a body JSON.parse accepted but that does not say one thing (strict-json.ts):
 * the items holding a duplicated member or a lone surrogate, or the body itself.
 */
function strictRefusal(faults: readonly JsonFault[], jobs: number): InvalidInputError {
  const outside = faults.find((fault) => itemOf(fault.path) === undefined);
  if (outside !== undefined) return malformed(`The batch body ${faultText(outside)}`);
  const byItem = new Map<number, InvalidInputError>();
  for (const fault of faults) {
    const index = itemOf(fault.path) as number;
    if (!byItem.has(index)) byItem.set(index, malformed(`Item ${index} ${faultText(fault)}`));
  }
  return batchRefusal(
    [...byItem].map(([index, error]) => ({ index, error })),
    jobs,
  );
}

/** The index of the `jobs` item a path lies in, if it lies in one. */
function itemOf(path: JsonPath): number | undefined {
  return path[0] === 'jobs' && typeof path[1] === 'number' ? path[1] : undefined;
}

/** What is wrong, after "The batch body" or "Item N". */
function faultText(fault: JsonFault): string {
  if (fault.kind === 'duplicate') {
    return `gives the member ${quoteName(fault.name ?? '')} more than once; JSON readers disagree on which one counts, so nothing was written. Give each member once.`;
  }
  const where =
    fault.name !== undefined
      ? `the member name ${quoteName(fault.name)}`
      : `${quoteName(String(fault.path.at(-1) ?? ''))}`;
  return `holds a lone UTF-16 surrogate (an unpaired \\uD800-\\uDFFF escape) in ${where}: no UTF-8 text can store it, so it would be written as U+FFFD, bytes that were not sent; nothing was written. Send text as it is, or bytes as base64 with "encoding": "base64".`;
}

/** A member name for a message: JSON-quoted (a lone surrogate shows as its escape), at most 32 characters. */
function quoteName(name: string): string {
  return name.length > 32 ? `${JSON.stringify(name.slice(0, 32))}…` : JSON.stringify(name);
}

function requestOf(queue: QueueName, item: unknown): CheckedRequest {
  if (!isObject(item)) throw malformed('A job must be an object with a "payload".');
  const unknown = Object.keys(item).filter((name) => !ITEM_FIELDS.has(name));
  if (unknown.length > 0) {
    throw malformed(
      `Unknown field ${quoteName(unknown[0] ?? '')}: a job has payload, encoding, id, idempotencyKey.`,
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
  return {
    queue,
    payload: bytes,
    id,
    idempotencyKey,
    origin: 'http',
    ...(id === undefined ? {} : { idAdvice: ITEM_ID_ADVICE }),
  };
}

/** A body that is not UTF-8: names the items whose bytes are not, where the JSON shows them. */
function notUtf8(body: Buffer): BatchRefusal {
  const items = [...new Set(itemsAt(body, invalidOffsets(body)))].slice(0, MAX_ITEMS_NAMED);
  const remedy =
    'JSON must be UTF-8: send bytes that are not text as base64 with "encoding": "base64". Nothing was written.';
  const faults = items.map((index) => ({
    index,
    code: 'EMQ_INVALID_REQUEST',
    detail: `Item ${index} holds bytes that are not valid UTF-8. ${remedy}`,
  }));
  const where =
    items.length === 0 ? 'The batch body' : `The batch body (items: ${items.join(', ')})`;
  return new BatchRefusal(`${where} is not valid UTF-8. ${remedy}`, faults, false);
}

/** Byte offsets where a UTF-8 sequence is broken (the first byte of each). */
function invalidOffsets(body: Buffer): number[] {
  const offsets: number[] = [];
  let at = 0;
  while (at < body.length) {
    const byte = body[at] as number;
    const length =
      byte < 0x80
        ? 1
        : byte >> 5 === 0b110
          ? 2
          : byte >> 4 === 0b1110
            ? 3
            : byte >> 3 === 0b11110
              ? 4
              : 0;
    if (length === 0 || !isUtf8(body.subarray(at, at + length))) {
      offsets.push(at);
      at += 1;
    } else {
      at += length;
    }
  }
  return offsets;
}

/**
 * The index of the `jobs` item each offset lies in, read from the JSON's structure: items are
 * the elements of the one array at depth 2 of `{"jobs": [...]}`.
 */
function itemsAt(body: Buffer, offsets: readonly number[]): number[] {
  const found: number[] = [];
  let depth = 0;
  let item = 0;
  let inString = false;
  let escaped = false;
  let next = 0;
  for (let at = 0; at < body.length && next < offsets.length; at++) {
    if (at === offsets[next]) {
      if (depth >= 2) found.push(item);
      next += 1;
    }
    const byte = body[at] as number;
    if (inString) {
      if (escaped) escaped = false;
      else if (byte === 0x5c) escaped = true;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x7b || byte === 0x5b) depth += 1;
    else if (byte === 0x7d || byte === 0x5d) depth -= 1;
    else if (byte === 0x2c && depth === 2) item += 1;
  }
  return found;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(detail: string): InvalidInputError {
  return new InvalidInputError('EMQ_INVALID_REQUEST', detail);
}
