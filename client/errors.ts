/**
 * The one error of the client: what the service answered (its problem's `code`, `status`,
 * `retryable`, `requestId`) or why there was no answer, with what to do next. A caller that
 * gives up on a retryable error can still send the job once: the error carries the key or id
 * the client used, and the job's id where the service named it.
 */
import type { ProblemCode, Written } from './contract.js';

/**
 * The codes of the service (the problem's `code`) and the client's own: `EMQ_NETWORK` (no
 * answer: the connection failed, dropped or timed out), `EMQ_ACCESS_DENIED` (401 or 403 from
 * API Gateway or a Function URL), `EMQ_UNEXPECTED_RESPONSE` (an answer the contract does not
 * describe), `EMQ_INVALID_CONFIG` (the client's own options).
 */
export type ClientCode =
  | ProblemCode
  | 'EMQ_NETWORK'
  | 'EMQ_ACCESS_DENIED'
  | 'EMQ_UNEXPECTED_RESPONSE'
  | 'EMQ_INVALID_CONFIG';

export interface ClientErrorFields {
  readonly code: ClientCode;
  /**
   * The HTTP status; undefined when there was no answer, or the call was refused before I/O
   * (but for a payload too large: 413, as the service would answer).
   */
  readonly status?: number | undefined;
  readonly retryable: boolean;
  /** The request id of the last answer (`x-request-id`): quote it to an operator. */
  readonly requestId?: string | undefined;
  /** The job the service named (the id a retry may PUT), or the caller's own id. */
  readonly id?: string | undefined;
  /** Whether that job may have been written, as the service said. */
  readonly written?: Written | undefined;
  /** The key the client sent (the caller's, or the one it minted): sending the job again with it makes no second job. */
  readonly idempotencyKey?: string | undefined;
  /** Requests sent for this call, retries included. */
  readonly attempts?: number | undefined;
  /** The problem's `items` (a refused batch's items at fault), as answered. */
  readonly items?: readonly unknown[] | undefined;
  /** How long the answer asked to wait before a retry (`Retry-After`), in ms. */
  readonly retryAfterMs?: number | undefined;
}

export class EmqClientError extends Error {
  override readonly name = 'EmqClientError';
  readonly code: ClientCode;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly requestId: string | undefined;
  readonly id: string | undefined;
  readonly written: Written | undefined;
  readonly idempotencyKey: string | undefined;
  readonly attempts: number | undefined;
  readonly items: readonly unknown[] | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, fields: ClientErrorFields, options?: { cause?: unknown }) {
    super(message, options);
    this.code = fields.code;
    this.status = fields.status;
    this.retryable = fields.retryable;
    this.requestId = fields.requestId;
    this.id = fields.id;
    this.written = fields.written;
    this.idempotencyKey = fields.idempotencyKey;
    this.attempts = fields.attempts;
    this.items = fields.items;
    this.retryAfterMs = fields.retryAfterMs;
  }

  /** The same error, after `attempts` requests, with the key the call used. */
  withCall(attempts: number, idempotencyKey: string | undefined): EmqClientError {
    const fields: ClientErrorFields = { ...this, attempts, idempotencyKey };
    const advice =
      this.retryable && attempts > 1
        ? ` Gave up after ${attempts} attempts.${sendAgain(fields)}`
        : '';
    return new EmqClientError(`${this.message}${advice}`, fields, { cause: this.cause });
  }
}

/** How to send the job once more without making a second one. */
function sendAgain(fields: ClientErrorFields): string {
  if (fields.idempotencyKey !== undefined) {
    return ` Send it again with idempotencyKey "${fields.idempotencyKey}": it is admitted at most once.`;
  }
  if (fields.id !== undefined) {
    return ` Send it again with id "${fields.id}": it is admitted at most once.`;
  }
  return '';
}

/**
 * A payload or request too large for the service, refused before any I/O with the status the
 * service would answer (413); `index` names the job of a batch, in `items` as the service would.
 */
export function tooLarge(message: string, index?: number): EmqClientError {
  const items =
    index === undefined ? undefined : [{ index, code: 'EMQ_PAYLOAD_TOO_LARGE', detail: message }];
  return new EmqClientError(message, {
    code: 'EMQ_PAYLOAD_TOO_LARGE',
    status: 413,
    retryable: false,
    items,
  });
}

/** A refusal of the client's own, before any I/O. */
export function invalid(code: ClientCode, message: string): EmqClientError {
  return new EmqClientError(message, { code, status: undefined, retryable: false });
}
