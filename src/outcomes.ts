/**
 * The outcome model of SPEC §7: one base error, one subclass per outcome class, and the one
 * table that turns a server reply or client failure into an outcome.
 */

export type InvalidInputCode =
  | 'EMQ_INVALID_QUEUE'
  | 'EMQ_INVALID_ID'
  | 'EMQ_INVALID_REQUEST'
  | 'EMQ_PAYLOAD_TOO_LARGE';
export type ConflictCode = 'EMQ_CONFLICT' | 'EMQ_IDEMPOTENCY_MISMATCH';
export type RefusedCode =
  | 'EMQKIND'
  | 'EMQLAYOUT'
  | 'EMQ_WRONGTYPE'
  | 'EMQ_NO_MODULE'
  | 'EMQ_UNKNOWN';
export type ErrorCode =
  | InvalidInputCode
  | ConflictCode
  | RefusedCode
  | 'EMQ_CONFIG'
  | 'EMQWIRE'
  | 'EMQ_PAUSED'
  | 'EMQ_UNAVAILABLE';

export interface EmqErrorOptions {
  /** The original failure, kept for operators; never shown to callers (it may name hosts). */
  cause?: unknown;
}

/** Every failure this package surfaces. `code` and `retryable` are stable API. */
export abstract class EmqError extends Error {
  abstract readonly code: ErrorCode;
  abstract readonly retryable: boolean;
  /** The HTTP status the HTTP face answers with. */
  abstract readonly status: number;

  constructor(message: string, options: EmqErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** The request itself is wrong; nothing was written. Fix the input, do not retry it. */
export class InvalidInputError extends EmqError {
  // Spelled out: bundles are minified, so constructor names are not kept.
  override readonly name = 'InvalidInputError';
  readonly retryable = false;
  readonly status: number;
  constructor(
    readonly code: InvalidInputCode,
    message: string,
    options?: EmqErrorOptions,
  ) {
    super(message, options);
    this.status = code === 'EMQ_PAYLOAD_TOO_LARGE' ? 413 : 400;
  }
}

/** The id or idempotency key is already taken by a different payload. */
export class ConflictError extends EmqError {
  override readonly name = 'ConflictError';
  readonly retryable = false;
  readonly status: number;
  constructor(
    readonly code: ConflictCode,
    message: string,
    options?: EmqErrorOptions,
  ) {
    super(message, options);
    this.status = code === 'EMQ_CONFLICT' ? 409 : 422;
  }
}

/** The server refused for a reason a retry cannot change (a bug or a misconfiguration). */
export class RefusedError extends EmqError {
  override readonly name = 'RefusedError';
  readonly retryable = false;
  readonly status = 500;
  constructor(
    readonly code: RefusedCode,
    message: string,
    options?: EmqErrorOptions,
  ) {
    super(message, options);
  }
}

/** A setting is missing or malformed; raised at start-up, before any I/O. */
export class ConfigError extends EmqError {
  override readonly name = 'ConfigError';
  readonly code = 'EMQ_CONFIG';
  readonly retryable = false;
  readonly status = 500;
}

/** Base of the outcomes that a later attempt can succeed on. */
export abstract class RetryableError extends EmqError {
  readonly retryable = true;
  readonly status = 503;
  /** A hint for Retry-After, in seconds. */
  abstract readonly retryAfterSeconds: number;
}

/** The node's wire identity is missing or differs from this host's (SPEC §6). */
export class FenceError extends RetryableError {
  override readonly name = 'FenceError';
  readonly code = 'EMQWIRE';
  readonly retryAfterSeconds = 5;
}

/** The server is pausing writes (CLIENT PAUSE WRITE, a failover, a read-only replica). */
export class PausedError extends RetryableError {
  override readonly name = 'PausedError';
  readonly code = 'EMQ_PAUSED';
  readonly retryAfterSeconds = 1;
}

/** The server could not be reached or cannot serve now (connect, timeout, loading, resharding). */
export class UnavailableError extends RetryableError {
  override readonly name = 'UnavailableError';
  readonly code = 'EMQ_UNAVAILABLE';
  readonly retryAfterSeconds = 1;
}

/** What a write reply means when it is not a failure. */
export type WriteStatus = 'enqueued' | 'duplicate';

interface Rule {
  readonly test: RegExp;
  readonly make: (cause: unknown) => EmqError;
}

const unavailable = (cause: unknown) =>
  new UnavailableError('Valkey is unavailable right now; retry the request.', { cause });

/**
 * The one reply-to-outcome table. Rows are matched in order against the failure text (a
 * server reply, or a client error message or errno code). Messages here are the ones callers
 * see, so they name no host and echo no server text that could carry one.
 */
const RULES: readonly Rule[] = [
  {
    test: /^EMQWIRE\b/,
    make: (cause) =>
      new FenceError(
        "The Valkey node's wire identity does not match this host's; retry later. Operators: run `emq fence check`, then `emq fence install`.",
        { cause },
      ),
  },
  {
    test: /^(ERR EMQ write-paused|READONLY\b)/,
    make: (cause) =>
      new PausedError('Valkey is pausing writes (failover or maintenance); retry shortly.', {
        cause,
      }),
  },
  {
    test: /^EMQKIND\b/,
    make: (cause) =>
      new RefusedError('EMQKIND', 'The server refused the job id: it must start with JOB.', {
        cause,
      }),
  },
  {
    test: /^EMQLAYOUT\b/,
    make: (cause) =>
      new RefusedError(
        'EMQLAYOUT',
        'The server refused the key layout: keys must be emq:{q}:job:<id> and emq:{q}:pending.',
        { cause },
      ),
  },
  {
    test: /^WRONGTYPE\b/,
    make: (cause) =>
      new RefusedError(
        'EMQ_WRONGTYPE',
        "A key of this queue holds the wrong type (the pending set is not a sorted set); inspect the queue's keys.",
        { cause },
      ),
  },
  {
    test: /^ERR unknown command '?EMQ\./i,
    make: (cause) =>
      new RefusedError(
        'EMQ_NO_MODULE',
        'The server does not load the EchoMQ module; set EMQ_EXECUTOR=script or load the module.',
        { cause },
      ),
  },
  {
    // The slot moved (failover, resharding) after the client read its slot map: the command
    // did not run. rounds.ts refreshes the map, so a retry reaches the new owner.
    test: /^(MOVED|ASK) /,
    make: unavailable,
  },
  {
    test: /^(LOADING|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN|OOM)\b/,
    make: unavailable,
  },
  {
    test: /^(Too many Cluster redirections|Connection is closed|Command timed out|Stream isn't writeable|None of startup nodes is available|Failed to refresh slots cache|Reached the max retries per request limit|connect ETIMEDOUT)/,
    make: unavailable,
  },
  {
    test: /^(ECONNRESET|ECONNREFUSED|ECONNABORTED|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)$/,
    make: unavailable,
  },
];

function textsOf(failure: unknown): string[] {
  if (failure instanceof Error) {
    const code = (failure as { code?: unknown }).code;
    return typeof code === 'string' ? [failure.message, code] : [failure.message];
  }
  return [String(failure)];
}

/** Classifies a failure (an Error thrown by iovalkey, or a server error reply) into an EmqError. */
export function classifyFailure(failure: unknown): EmqError {
  if (failure instanceof EmqError) return failure;
  const texts = textsOf(failure);
  for (const rule of RULES) {
    if (texts.some((text) => rule.test.test(text))) return rule.make(failure);
  }
  return new RefusedError(
    'EMQ_UNKNOWN',
    'The server answered in a way this host does not understand; nothing can be assumed written. See the logs.',
    { cause: failure },
  );
}

/** Classifies a write reply: 1 enqueued, 0 duplicate, an error reply or anything else a failure. */
export function classify(replyOrFailure: unknown): WriteStatus | EmqError {
  if (replyOrFailure === 1) return 'enqueued';
  if (replyOrFailure === 0) return 'duplicate';
  return classifyFailure(replyOrFailure);
}
