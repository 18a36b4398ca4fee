/**
 * EchoMqClient: the HTTP face from the caller's side (README.md, "The HTTP face"; docs/client.md,
 * "EchoMqClient"). Every request it sends carries a key or an id, the caller's or one it minted for
 * the call, and every retry carries the same one, so no retry of its own can make a second job: a
 * keyless `enqueue` sends a fresh UUID as its Idempotency-Key, and so does each batch item with
 * neither.
 *
 * A 503 names the job it may have written and advises a PUT to it: that advice is for a
 * request without a key, which this client never sends. Keeping the key instead is as safe
 * and outlives the call: the caller may send the job again later with the same key (the
 * error gives it), and a write of the first attempt that lands late still finds its key.
 */
import { randomUUID } from 'node:crypto';
import { type Answer, answerError, isObject, networkError, readAnswer } from './answers.js';
import {
  type BatchJob,
  type BatchOutcome,
  batchItem,
  type EnqueueOptions,
  sendBatch,
} from './batch.js';
import { requestRanges, serialized } from './batch-split.js';
import {
  bothGiven,
  checkId,
  checkKey,
  checkPayload,
  checkQueue,
  type Payload,
  payloadLimit,
} from './checks.js';
import type { Admitted, Job } from './contract.js';
import { type Endpoint, endpointOf, requestUrl } from './endpoint.js';
import { EmqClientError, invalid } from './errors.js';
import { type RetryOptions, type RetryPolicy, retrying, retryPolicy } from './retry.js';
import { BYTES_TYPE, jobsPath, type ServiceRequest, TEXT_TYPE } from './service-request.js';
import { type Credentials, type Outgoing, signer, signingScope } from './signing.js';

export interface EchoMqClientOptions {
  /**
   * Where the service is: the HTTP API's URL (`https://<id>.execute-api.<region>.amazonaws.com/`,
   * with its stage if it is a named one), a REST API stage's URL, a custom domain with its base
   * path, a Function URL, or the local stack's; a trailing `/` or none.
   */
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
  /**
   * The largest payload sent, in bytes: a larger one is refused (413) before any request. Give
   * the service's EMQ_MAX_PAYLOAD_BYTES where the deploy changed it. Default 262,144 (256 KiB).
   */
  readonly maxPayloadBytes?: number;
}

/** Header names to their values. */
export type HeaderMap = Readonly<Record<string, string>>;

export class EchoMqClient {
  readonly #endpoint: Endpoint;
  readonly #maxPayloadBytes: number;
  readonly #policy: RetryPolicy;
  readonly #headers: () => HeaderMap | Promise<HeaderMap>;
  readonly #fetch: typeof fetch;
  readonly #sign: ((request: Outgoing) => Promise<Record<string, string>>) | undefined;

  constructor(options: EchoMqClientOptions) {
    this.#endpoint = endpointOf(options.endpoint);
    this.#maxPayloadBytes = payloadLimit(options.maxPayloadBytes);
    this.#policy = retryPolicy(options.retry);
    const headers = options.headers ?? {};
    this.#headers = typeof headers === 'function' ? headers : () => headers;
    this.#fetch = options.fetch ?? globalThis.fetch;
    if (options.credentials === false) {
      this.#sign = undefined;
    } else {
      if (typeof headers !== 'function') checkUnsigned(headers);
      const sign = signer(signingScope(this.#endpoint.url, options.region), options.credentials);
      this.#sign = (request) => {
        checkUnsigned(request.headers);
        return sign(request);
      };
    }
  }

  /** Admits one job; resolves with its id and whether it was new (`enqueued`) or a duplicate. */
  async enqueue(queue: string, payload: Payload, options: EnqueueOptions = {}): Promise<Admitted> {
    checkQueue(queue);
    checkPayload(payload, this.#maxPayloadBytes);
    const what = `Enqueue to queue ${queue}`;
    const body = bytesOf(payload);
    const type = { 'content-type': typeof payload === 'string' ? TEXT_TYPE : BYTES_TYPE };
    if (options.id !== undefined) {
      if (options.idempotencyKey !== undefined) throw bothGiven();
      checkId(options.id);
      return this.#send(
        { what, method: 'PUT', path: [...jobsPath(queue), options.id], body, headers: type },
        admitted,
      );
    }
    const key = options.idempotencyKey ?? randomUUID();
    checkKey(key);
    const headers = { ...type, 'idempotency-key': key };
    return this.#send(
      { what, method: 'POST', path: jobsPath(queue), body, headers, key },
      admitted,
    );
  }

  /**
   * Admits many jobs of one queue, in requests of at most 1,000 jobs and 6 MiB of body each,
   * one after the other; resolves with one outcome per job, in input order. Every job is
   * checked before the first request. Jobs that failed retryably are sent again (with their
   * key or id) within the budget; a job still failing after it has its error in its outcome.
   * Throws when the service refuses a request as a whole (a 4xx: nothing of it was written;
   * jobs of earlier requests may have been).
   */
  async enqueueBatch(queue: string, jobs: readonly BatchJob[]): Promise<BatchOutcome[]> {
    checkQueue(queue);
    if (jobs.length === 0) throw invalid('EMQ_INVALID_REQUEST', 'A batch needs at least one job.');
    const items = jobs.map((job, index) => {
      checkPayload(job.payload, this.#maxPayloadBytes, index);
      return serialized(batchItem(job, index));
    });
    const outcomes: BatchOutcome[] = [];
    for (const [start, end] of requestRanges(items)) {
      const send = this.#send.bind(this);
      outcomes.push(...(await sendBatch(send, queue, items.slice(start, end), start)));
    }
    return outcomes;
  }

  /** The job as its row holds it, or undefined when the queue has no such job (never admitted, or consumed). */
  async get(queue: string, id: string): Promise<Job | undefined> {
    checkQueue(queue);
    checkId(id);
    const what = `Read job ${id} of queue ${queue}`;
    try {
      return await this.#send({ what, method: 'GET', path: [...jobsPath(queue), id] }, (answer) =>
        isObject(answer.body) ? (answer.body as Job) : undefined,
      );
    } catch (error) {
      if (error instanceof EmqClientError && error.code === 'EMQ_JOB_NOT_FOUND') return undefined;
      throw error;
    }
  }

  /**
   * Sends one request until it is answered with a success `accept` takes (it returns a value
   * other than undefined), a refusal, or the budget is spent.
   */
  async #send<T>(request: ServiceRequest, accept: (answer: Answer) => T | undefined): Promise<T> {
    const { what, method, body } = request;
    const url = requestUrl(this.#endpoint, request.path);
    const send = async (timeoutMs: number): Promise<T> => {
      const bytes = typeof body === 'function' ? body() : body;
      const headers: Record<string, string> = { ...(await this.#headers()), ...request.headers };
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
    return retrying(this.#policy, send, request.key);
  }
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

function bytesOf(payload: Payload): Uint8Array {
  return typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
}
