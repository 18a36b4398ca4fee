/**
 * The outcome model of docs/reliability.md "Outcomes": one base error, one subclass per outcome
 * class, and the one table that says what each code means: its class, whether a retry can succeed,
 * the HTTP status, Retry-After, whether the record itself is at fault (SQS: the DLQ), and, for the
 * codes whose messages are for operators only, what a public answer says instead.
 */

export type InvalidInputCode =
  | 'EMQ_INVALID_QUEUE'
  | 'EMQ_INVALID_ID'
  | 'EMQ_INVALID_REQUEST'
  | 'EMQ_PAYLOAD_TOO_LARGE';
export type ConflictCode = 'EMQ_CONFLICT' | 'EMQ_IDEMPOTENCY_MISMATCH';
export type RefusedCode = 'EMQKIND' | 'EMQLAYOUT' | 'EMQ_WRONGTYPE' | 'EMQ_UNKNOWN';
export type ConfigCode = 'EMQ_CONFIG' | 'EMQ_NO_MODULE';
export type ErrorCode =
  | InvalidInputCode
  | ConflictCode
  | RefusedCode
  | ConfigCode
  | 'EMQWIRE'
  | 'EMQ_PAUSED'
  | 'EMQ_UNCONFIRMED'
  | 'EMQ_UNAVAILABLE';

export type OutcomeClass =
  | 'invalid input'
  | 'conflict'
  | 'refused'
  | 'configuration'
  | 'fence'
  | 'paused'
  | 'unconfirmed'
  | 'unavailable'
  | 'unknown';

export interface Outcome {
  readonly class: OutcomeClass;
  readonly retryable: boolean;
  /** The HTTP status the HTTP face answers with. */
  readonly status: number;
  /** Retry-After, in seconds, on retryable outcomes. */
  readonly retryAfterSeconds?: number;
  /** The message itself is at fault: the SQS face sends its record to the DLQ. Everything else is retried. */
  readonly messageFault: boolean;
  /**
   * Set where the message is for operators only (it names nodes, wire identities or settings):
   * what a public answer says instead. The message itself goes to the log.
   */
  readonly publicDetail?: string;
}

const invalid = (status: number): Outcome => ({
  class: 'invalid input',
  retryable: false,
  status,
  messageFault: true,
});
const refused: Outcome = { class: 'refused', retryable: false, status: 500, messageFault: true };
const MISCONFIGURED =
  'The service is misconfigured; an operator must fix it. Quote the request id to an operator.';
const configuration: Outcome = {
  class: 'configuration',
  retryable: false,
  status: 500,
  messageFault: false,
  publicDetail: MISCONFIGURED,
};
const retry = (kind: OutcomeClass, retryAfterSeconds: number): Outcome => ({
  class: kind,
  retryable: true,
  status: 503,
  retryAfterSeconds,
  messageFault: false,
});

/** docs/reliability.md "Outcomes", one row per code. */
export const OUTCOMES: Readonly<Record<ErrorCode, Outcome>> = {
  EMQ_INVALID_QUEUE: invalid(400),
  EMQ_INVALID_ID: invalid(400),
  EMQ_INVALID_REQUEST: invalid(400),
  EMQ_PAYLOAD_TOO_LARGE: invalid(413),
  EMQ_CONFLICT: { class: 'conflict', retryable: false, status: 409, messageFault: true },
  EMQ_IDEMPOTENCY_MISMATCH: {
    class: 'conflict',
    retryable: false,
    status: 422,
    messageFault: true,
  },
  EMQKIND: refused,
  EMQLAYOUT: refused,
  EMQ_WRONGTYPE: refused,
  EMQ_CONFIG: configuration,
  EMQ_NO_MODULE: configuration,
  EMQWIRE: {
    ...retry('fence', 5),
    publicDetail:
      'The service is being reconfigured (its wire identity is not in place); retry after the Retry-After delay.',
  },
  EMQ_PAUSED: retry('paused', 1),
  EMQ_UNCONFIRMED: retry('unconfirmed', 1),
  EMQ_UNAVAILABLE: retry('unavailable', 1),
  EMQ_UNKNOWN: { class: 'unknown', retryable: false, status: 500, messageFault: false },
};

/**
 * What may have reached the server for the admission an error concerns: `no` (refused before
 * it was sent, or refused by the server before its first write), `maybe` (sent, and no answer
 * says how it ended: a timeout, a dropped connection) or `yes` (written, not yet confirmed).
 */
export type Written = 'no' | 'maybe' | 'yes';

export interface EmqErrorOptions {
  /** The original failure, kept for operators; never shown to callers (it may name hosts). */
  readonly cause?: unknown;
  /** The job the failed admission proposed or named, where there was one. */
  readonly jobId?: string | undefined;
  /** Whether the admission may have been written. Default `no`. */
  readonly written?: Written;
}

/** Every failure this package surfaces. `code` and `retryable` are stable API. */
export abstract class EmqError extends Error {
  abstract readonly code: ErrorCode;
  /** The job the failed admission proposed or named, where there was one. */
  readonly jobId: string | undefined;
  /** Whether the admission may have been written (see Written). */
  readonly written: Written;

  constructor(message: string, options: EmqErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.jobId = options.jobId;
    this.written = options.written ?? 'no';
  }

  get outcome(): Outcome {
    return OUTCOMES[this.code];
  }

  get retryable(): boolean {
    return this.outcome.retryable;
  }

  /** The HTTP status the HTTP face answers with. */
  get status(): number {
    return this.outcome.status;
  }

  /** The record itself is at fault (SQS: to the DLQ); a server or configuration fault is not. */
  get messageFault(): boolean {
    return this.outcome.messageFault;
  }

  /** What a public answer may say: the message, unless the table keeps it for operators. */
  get publicDetail(): string {
    return this.outcome.publicDetail ?? this.message;
  }

  /** True when the message is for operators only (the log carries it, answers do not). */
  get operatorOnly(): boolean {
    return this.outcome.publicDetail !== undefined;
  }
}

/** The request itself is wrong; nothing was written. Fix the input, do not retry it. */
export class InvalidInputError extends EmqError {
  // Spelled out: bundles are minified, so constructor names are not kept.
  override readonly name = 'InvalidInputError';
  constructor(
    readonly code: InvalidInputCode,
    message: string,
    options?: EmqErrorOptions,
  ) {
    super(message, options);
  }
}

/** The id or idempotency key is already taken by a different payload. */
export class ConflictError extends EmqError {
  override readonly name = 'ConflictError';
  constructor(
    readonly code: ConflictCode,
    message: string,
    options?: EmqErrorOptions,
  ) {
    super(message, options);
  }
}

/** The server refused for a reason a retry cannot change, or answered something unknown. */
export class RefusedError extends EmqError {
  override readonly name = 'RefusedError';
  constructor(
    readonly code: RefusedCode,
    message: string,
    options?: EmqErrorOptions,
  ) {
    super(message, options);
  }
}

/** A setting, a credential, a permission or the servers' setup is wrong: an operator must act. */
export class ConfigError extends EmqError {
  override readonly name = 'ConfigError';
  readonly code: ConfigCode;
  constructor(message: string, options?: EmqErrorOptions & { readonly code?: ConfigCode }) {
    super(message, options);
    this.code = options?.code ?? 'EMQ_CONFIG';
  }
}

/** Base of the outcomes that a later attempt can succeed on. */
export abstract class RetryableError extends EmqError {
  /** A hint for Retry-After, in seconds. */
  get retryAfterSeconds(): number {
    return this.outcome.retryAfterSeconds ?? 1;
  }
}

/**
 * The node's wire identity or function library is missing or differs (docs/wire.md, "The fence").
 */
export class FenceError extends RetryableError {
  override readonly name = 'FenceError';
  readonly code = 'EMQWIRE';
}

/** The server is pausing writes (CLIENT PAUSE WRITE, a failover, a read-only replica). */
export class PausedError extends RetryableError {
  override readonly name = 'PausedError';
  readonly code = 'EMQ_PAUSED';
}

/**
 * Written, but fewer replicas confirmed it than EMQ_ACK_REPLICAS asks (docs/reliability.md,
 * "Acknowledgements").
 */
export class UnconfirmedError extends RetryableError {
  override readonly name = 'UnconfirmedError';
  readonly code = 'EMQ_UNCONFIRMED';
}

/** The server could not be reached or cannot serve now (connect, timeout, loading, resharding). */
export class UnavailableError extends RetryableError {
  override readonly name = 'UnavailableError';
  readonly code = 'EMQ_UNAVAILABLE';
}

/** What a write reply means when it is not a failure. */
export type WriteStatus = 'enqueued' | 'duplicate';
