/**
 * The HTTP face's schemas as types, and its parameters' patterns. Generated from
 * openapi/openapi.yaml by scripts/openapi-types.ts: do not edit; run
 * `npx tsx scripts/openapi-types.ts` after changing the document.
 */

/** `JOB` + 11 base62 digits below 2^64; the value is `(ms since 2024-01-01Z) << 22 | low22`, so id order is mint order. */
export type JobId = string;

export type Admitted = {
  readonly queue: string;
  readonly id: JobId;
  readonly status: 'enqueued' | 'duplicate';
};

export type Job = {
  readonly queue: string;
  readonly id: JobId;
  readonly state: string;
  readonly attempts: number;
  /** The payload as UTF-8 text, or base64 when it is not UTF-8 (see `encoding`). */
  readonly payload: string;
  readonly encoding: 'utf8' | 'base64';
};

/** One job. Give `id` or `idempotencyKey`, not both (an id is its own key); with neither, the item is keyed by the invocation. */
export type BatchItem = {
  /** Text, or base64 with `encoding` base64 (standard alphabet, padded). */
  readonly payload: string;
  readonly encoding?: 'utf8' | 'base64';
  readonly id?: JobId;
  readonly idempotencyKey?: string;
};

/** At most 6,291,456 bytes (6 MiB) of UTF-8 JSON, with 1 to 1,000 jobs. */
export type BatchRequest = {
  readonly jobs: readonly BatchItem[];
};

export type BatchResult =
  | {
      readonly id: JobId;
      readonly status: 'enqueued' | 'duplicate';
    }
  | {
      /** The id the item proposed or named, on a retryable error; send the item again with this `id` and it is admitted at most once. */
      readonly id?: JobId;
      readonly error: Problem;
    };

export type BatchResponse = {
  readonly queue: string;
  readonly results: readonly BatchResult[];
};

/** Stable codes (docs/reliability.md). 400 EMQ_INVALID_QUEUE, EMQ_INVALID_ID, EMQ_INVALID_REQUEST; 413 EMQ_PAYLOAD_TOO_LARGE; 404 EMQ_JOB_NOT_FOUND, EMQ_ROUTE_NOT_FOUND; 405 EMQ_METHOD_NOT_ALLOWED; 409 EMQ_CONFLICT; 422 EMQ_IDEMPOTENCY_MISMATCH; 500 EMQKIND, EMQLAYOUT, EMQ_WRONGTYPE, EMQ_NO_MODULE, EMQ_CONFIG, EMQ_UNKNOWN; 503 (retryable) EMQWIRE, EMQ_PAUSED, EMQ_UNCONFIRMED, EMQ_UNAVAILABLE. */
export type ProblemCode =
  | 'EMQ_INVALID_QUEUE'
  | 'EMQ_INVALID_ID'
  | 'EMQ_INVALID_REQUEST'
  | 'EMQ_PAYLOAD_TOO_LARGE'
  | 'EMQ_JOB_NOT_FOUND'
  | 'EMQ_ROUTE_NOT_FOUND'
  | 'EMQ_METHOD_NOT_ALLOWED'
  | 'EMQ_CONFLICT'
  | 'EMQ_IDEMPOTENCY_MISMATCH'
  | 'EMQKIND'
  | 'EMQLAYOUT'
  | 'EMQ_WRONGTYPE'
  | 'EMQ_NO_MODULE'
  | 'EMQ_CONFIG'
  | 'EMQ_UNKNOWN'
  | 'EMQWIRE'
  | 'EMQ_PAUSED'
  | 'EMQ_UNCONFIRMED'
  | 'EMQ_UNAVAILABLE';

export type ItemFault = {
  readonly index: number;
  readonly code: ProblemCode;
  readonly detail: string;
};

/** What may have reached the server for the job: `no` (nothing was written), `maybe` (sent, and no answer says how it ended), `yes` (written, not yet confirmed by enough replicas). */
export type Written = 'no' | 'maybe' | 'yes';

export type RetryItem = {
  readonly index: number;
  readonly code: ProblemCode;
  /** The id the item proposed or named; absent when none was proposed yet (nothing was sent). */
  readonly id?: JobId;
  readonly written: Written;
};

/** The RFC 9457 members every problem carries. */
export type ProblemMembers = {
  readonly title: string;
  readonly status: number;
  /** What was wrong and what to do. Never a host, credential, wire identity or setting name. */
  readonly detail: string;
  readonly code: ProblemCode;
  readonly retryable: boolean;
  /** On a retryable problem, the job the request proposed or named; a retry may PUT it (`PUT /queues/{queue}/jobs/{id}` with the same body) and is admitted at most once. */
  readonly id?: JobId;
  readonly written?: Written;
  /** On a 503 for a POST without Idempotency-Key that may have been written: the one retry that stays exactly once. A new POST would be a new request and could make a second job; a PUT of the same body to `path` answers 200 for the job that landed, or writes it (201) when it did not. */
  readonly retry?: {
    readonly method: 'PUT';
    readonly path: string;
  };
  /** A refused batch's items at fault (at most 20 named), or, on a 503 for a whole batch, every item with its id and what may have been written. */
  readonly items?: readonly ItemFault[] | readonly RetryItem[];
  readonly [member: string]: unknown;
};

/** RFC 9457 problem details, as a batch item's error. */
export type Problem = ProblemMembers;

/** A problem answered for a whole request; it carries the request id. */
export type RequestProblem = ProblemMembers & {
  readonly requestId: string;
  readonly [member: string]: unknown;
};

/** The pattern of the `queue` parameter. */
export const QueuePattern = /^[A-Za-z0-9._-]{1,64}$/;

/** The pattern of the `Idempotency-Key` parameter. */
export const IdempotencyKeyPattern = /^[\x21-\x7e]{1,256}$/;
