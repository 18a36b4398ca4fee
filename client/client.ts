/**
 * EchoMqClient: the HTTP face from the caller's side (SPEC §8, §8a, §12). Every request it
 * sends carries a key or an id, the caller's or one it minted for the call, and every retry
 * carries the same one, so no retry of its own can make a second job: a keyless `enqueue`
 * sends a fresh UUID as its Idempotency-Key, and so does each batch item with neither.
 *
 * A 503 names the job it may have written and advises a PUT to it: that advice is for a
 * request without a key, which this client never sends. Keeping the key instead is as safe
 * and outlives the call: the caller may send the job again later with the same key (the
 * error gives it), and a write of the first attempt that lands late still finds its key.
 */
import { randomUUID } from 'node:crypto';
import { type Answer, answerError, isObject, networkError, readAnswer } from './answers.js';
import type { Payload } from './checks.js';
import { bothGiven, checkId, checkKey, checkQueue } from './checks.js';
import type { Admitted, BatchItem, BatchResponse, Job } from './contract.js';
import { EmqClientError, invalid } from './errors.js';
import { type RetryOptions, type RetryPolicy, retrying, retryPolicy } from './retry.js';
import { type Credentials, type Outgoing, signer, signingScope } from './signing.js';

export interface EchoMqClientOptions {
  /** The API's URL with its stage (`https://<id>.execute-api.<region>.amazonaws.com/prod`), a Function URL, or the local stack's. */
  readonly endpoint: string | URL;
  /** The region to sign for. Default: the endpoint's own, else AWS_REGION. */
  readonly region?: string;
  /** Whom to sign as. Default: the AWS SDK's credential chain. `false`: unsigned requests. */
  readonly credentials?: Credentials | false;
  readonly retry?: RetryOptions;
  /**
   * Headers for every request, e.g. `authorization: Bearer <JWT>` with `credentials: false`;
   * or a function that gives them for each request (a token that is renewed).
   */
  readonly headers?: HeaderMap | (() => HeaderMap | Promise<HeaderMap>);
  /** The fetch to send with. Default: the global fetch. */
  readonly fetch?: typeof fetch;
}

export interface EnqueueOptions {
  /** Your own identifier for this job: every call with it maps to one job (for the service's record life, one hour by default). */
  readonly idempotencyKey?: string;
  /** A job id you minted (`mintId`, `emq id`): the job is admitted under it (PUT). */
  readonly id?: string;
}

export interface BatchJob extends EnqueueOptions {
  readonly payload: Payload;
}

/** One job of a batch: admitted, or its error (a refusal, or a retryable failure that outlasted the budget). */
export type BatchOutcome =
  | { readonly id: string; readonly status: Admitted['status']; readonly error?: undefined }
  | {
      readonly id?: string | undefined;
      readonly error: EmqClientError;
      readonly status?: undefined;
    };

/** Header names to their values. */
export type HeaderMap = Readonly<Record<string, string>>;

/** The most jobs one batch request takes: a longer list is sent as several requests. */
export const MAX_BATCH_JOBS = 1_000;

export class EchoMqClient {
  readonly #base: URL;
  readonly #policy: RetryPolicy;
  readonly #headers: () => HeaderMap | Promise<HeaderMap>;
  readonly #fetch: typeof fetch;
  readonly #sign: ((request: Outgoing) => Promise<Record<string, string>>) | undefined;

  constructor(options: EchoMqClientOptions) {
    this.#base = endpointOf(options.endpoint);
    this.#policy = retryPolicy(options.retry);
    const headers = options.headers ?? {};
    this.#headers = typeof headers === 'function' ? headers : () => headers;
    this.#fetch = options.fetch ?? globalThis.fetch;
    if (options.credentials === false) {
      this.#sign = undefined;
    } else {
      if (typeof headers !== 'function') checkUnsigned(headers);
      const sign = signer(signingScope(this.#base, options.region), options.credentials);
      this.#sign = (request) => {
        checkUnsigned(request.headers);
        return sign(request);
      };
    }
  }

  /** Admits one job; resolves with its id and whether it was new (`enqueued`) or a duplicate. */
  async enqueue(queue: string, payload: Payload, options: EnqueueOptions = {}): Promise<Admitted> {
    checkQueue(queue);
    const what = `Enqueue to queue ${queue}`;
    const body = bytesOf(payload);
    const type = { 'content-type': typeof payload === 'string' ? TEXT_TYPE : BYTES_TYPE };
    if (options.id !== undefined) {
      if (options.idempotencyKey !== undefined) throw bothGiven();
      checkId(options.id);
      return this.#call(
        { what, method: 'PUT', path: `${jobsPath(queue)}/${options.id}`, body, headers: type },
        admitted,
      );
    }
    const key = options.idempotencyKey ?? randomUUID();
    checkKey(key);
    const headers = { ...type, 'idempotency-key': key };
    return this.#call(
      { what, method: 'POST', path: jobsPath(queue), body, headers, key },
      admitted,
    );
  }

  /**
   * Admits many jobs of one queue, one request per 1,000; resolves with one outcome per job,
   * in input order. Jobs that failed retryably are sent again (with their key or id) within
   * the budget; a job still failing after it has its error in its outcome. Throws when the
   * service refuses a request as a whole (a 4xx: nothing of it was written).
   */
  async enqueueBatch(queue: string, jobs: readonly BatchJob[]): Promise<BatchOutcome[]> {
    checkQueue(queue);
    if (jobs.length === 0) throw invalid('EMQ_INVALID_REQUEST', 'A batch needs at least one job.');
    const items = jobs.map(batchItem);
    const outcomes: BatchOutcome[] = [];
    for (let start = 0; start < items.length; start += MAX_BATCH_JOBS) {
      const chunk = items.slice(start, start + MAX_BATCH_JOBS);
      outcomes.push(...(await this.#batch(queue, chunk, start)));
    }
    return outcomes;
  }

  /** The job as its row holds it, or undefined when the queue has no such job (never admitted, or consumed). */
  async get(queue: string, id: string): Promise<Job | undefined> {
    checkQueue(queue);
    checkId(id);
    const what = `Read job ${id} of queue ${queue}`;
    try {
      return await this.#call(
        { what, method: 'GET', path: `${jobsPath(queue)}/${id}` },
        (answer) => (isObject(answer.body) ? (answer.body as Job) : undefined),
      );
    } catch (error) {
      if (error instanceof EmqClientError && error.code === 'EMQ_JOB_NOT_FOUND') return undefined;
      throw error;
    }
  }

  /**
   * One batch request's jobs (the caller's from `offset` on); the jobs that may pass on
   * another try are sent again.
   */
  async #batch(
    queue: string,
    items: readonly BatchItem[],
    offset: number,
  ): Promise<BatchOutcome[]> {
    const outcomes: (BatchOutcome | undefined)[] = items.map(() => undefined);
    const retryable = new Map<number, EmqClientError>();
    let pending = items.map((_, index) => index);
    let attempts = 0;
    const call: Call = {
      what: `Enqueue a batch to queue ${queue}`,
      method: 'POST',
      path: `${jobsPath(queue)}/batch`,
      headers: { 'content-type': JSON_TYPE },
      // Made for each attempt: it holds only the jobs still pending.
      body: () => {
        attempts += 1;
        return Buffer.from(JSON.stringify({ jobs: pending.map((index) => items[index]) }));
      },
    };
    try {
      await this.#call(call, (answer) => {
        const results = isObject(answer.body) ? answer.body.results : undefined;
        if (!Array.isArray(results) || results.length !== pending.length) return undefined;
        const again: number[] = [];
        (results as BatchResponse['results']).forEach((result, at) => {
          const index = pending[at] as number;
          if (!('error' in result)) {
            outcomes[index] = { id: result.id, status: result.status };
            return;
          }
          const error = itemError(answer, result.error, offset + index, result.id);
          if (error.retryable) {
            again.push(index);
            retryable.set(index, error);
          } else {
            const key = items[index]?.idempotencyKey;
            outcomes[index] = { id: result.id, error: error.withCall(attempts, key) };
          }
        });
        pending = again;
        // Thrown to the retry loop: the jobs left are sent again after the wait.
        if (again.length > 0) throw retryable.get(again[0] as number);
        return true;
      });
    } catch (error) {
      // Only a budget spent on retryable failures leaves jobs pending, each with its own error.
      if (!(error instanceof EmqClientError) || !error.retryable) throw error;
      for (const index of pending) {
        const item = items[index] as BatchItem;
        const last = (retryable.get(index) ?? error).withCall(attempts, item.idempotencyKey);
        outcomes[index] = { id: item.id ?? last.id, error: last };
      }
    }
    return outcomes as BatchOutcome[];
  }

  /**
   * Sends one request until it is answered with a success `accept` takes (it returns a value
   * other than undefined), a refusal, or the budget is spent.
   */
  async #call<T>(call: Call, accept: (answer: Answer) => T | undefined): Promise<T> {
    const { what, method, body } = call;
    const url = new URL(this.#base);
    url.pathname = `${this.#base.pathname}${call.path}`;
    const send = async (timeoutMs: number): Promise<T> => {
      const bytes = typeof body === 'function' ? body() : body;
      const headers: Record<string, string> = { ...(await this.#headers()), ...call.headers };
      const signed =
        this.#sign === undefined
          ? headers
          : await this.#sign({ method, url, headers, body: bytes });
      let answer: Answer;
      try {
        const response = await this.#fetch(url, {
          method,
          headers: signed,
          body: bytes,
          signal: AbortSignal.timeout(timeoutMs),
        });
        answer = await readAnswer(response, Date.now());
      } catch (error) {
        throw networkError(what, error);
      }
      const value = answer.status < 300 ? accept(answer) : undefined;
      if (value !== undefined) return value;
      throw answerError(answer, what);
    };
    return retrying(this.#policy, send, call.key);
  }
}

/** One call's request; every attempt sends it with the same key or id. */
interface Call {
  /** What the call does, as the error message begins. */
  readonly what: string;
  readonly method: 'GET' | 'POST' | 'PUT';
  /** Under the endpoint's path. */
  readonly path: string;
  /** Bytes, or JSON made for each attempt. Default none. */
  readonly body?: Uint8Array | (() => Uint8Array);
  readonly headers?: Readonly<Record<string, string>>;
  /** The Idempotency-Key sent, for the error's advice. Default none. */
  readonly key?: string;
}

const JSON_TYPE = 'application/json';
const TEXT_TYPE = 'text/plain; charset=utf-8';
const BYTES_TYPE = 'application/octet-stream';

/** The endpoint as a base URL without a trailing slash; throws EMQ_INVALID_CONFIG. */
function endpointOf(endpoint: string | URL): URL {
  let base: URL;
  try {
    base = new URL(String(endpoint));
  } catch {
    base = new URL('invalid:');
  }
  if (base.protocol !== 'https:' && base.protocol !== 'http:') {
    throw invalid(
      'EMQ_INVALID_CONFIG',
      `The endpoint ${JSON.stringify(String(endpoint).slice(0, 200))} is not an http(s) URL: give the API's URL with its stage, or a Function URL.`,
    );
  }
  base.pathname = base.pathname.replace(/\/+$/, '');
  return base;
}

/** Signing writes the authorization header: one given too would be replaced, silently. */
function checkUnsigned(headers: HeaderMap): void {
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) {
    throw invalid(
      'EMQ_INVALID_CONFIG',
      'An authorization header and SigV4 signing exclude each other: pass `credentials: false` to send your own (a JWT).',
    );
  }
}

/** The admission as the contract gives it; undefined for a body that is not one. */
function admitted(answer: Answer): Admitted | undefined {
  if (!isObject(answer.body)) return undefined;
  const { queue, id, status } = answer.body;
  if (typeof queue !== 'string' || typeof id !== 'string') return undefined;
  return status === 'enqueued' || status === 'duplicate' ? { queue, id, status } : undefined;
}

/** A batch job as the service takes it; a job with neither key nor id gets a minted key. */
function batchItem(job: BatchJob, index: number): BatchItem {
  if (job.id !== undefined && job.idempotencyKey !== undefined) throw bothGiven(index);
  if (job.id !== undefined) checkId(job.id, index);
  const key = job.id === undefined ? (job.idempotencyKey ?? randomUUID()) : undefined;
  if (key !== undefined) checkKey(key, index);
  const text = typeof job.payload === 'string';
  return {
    payload: text
      ? (job.payload as string)
      : Buffer.from(job.payload as Uint8Array).toString('base64'),
    ...(text ? {} : { encoding: 'base64' as const }),
    ...(job.id === undefined ? { idempotencyKey: key } : { id: job.id }),
  };
}

/** A job's error inside a batch answer, as its own EmqClientError. */
function itemError(
  answer: Answer,
  problem: unknown,
  index: number,
  id: string | undefined,
): EmqClientError {
  const status = isObject(problem) && typeof problem.status === 'number' ? problem.status : 500;
  return answerError(
    {
      status,
      requestId: answer.requestId,
      retryAfterMs: answer.retryAfterMs,
      body: { ...(isObject(problem) ? problem : {}), id },
    },
    `Job ${index} of the batch`,
  );
}

function jobsPath(queue: string): string {
  return `/queues/${encodeURIComponent(queue)}/jobs`;
}

function bytesOf(payload: Payload): Uint8Array {
  return typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
}
