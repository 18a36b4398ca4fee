/**
 * An HTTP answer read against the contract: a success body, or an EmqClientError that says
 * whether a retry with the same key or id is safe and useful. Problem bodies are read
 * defensively (any member may be missing or of another type): they come from the service, or
 * from API Gateway, which answers in its own shapes (`{"message": "Forbidden"}`).
 */
import type { ProblemCode, Written } from './contract.js';
import { type ClientCode, EmqClientError } from './errors.js';

/** What one request came back with. */
export interface Answer {
  readonly status: number;
  readonly requestId: string | undefined;
  /** The `Retry-After` delay in ms, when the answer gave one. */
  readonly retryAfterMs: number | undefined;
  /** The parsed JSON body, or undefined. */
  readonly body: unknown;
}

/** Reads the whole answer. */
export async function readAnswer(response: Response, now: number): Promise<Answer> {
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return {
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    retryAfterMs: retryAfterMs(response.headers.get('retry-after'), now),
    body,
  };
}

/** `Retry-After` as seconds or as an HTTP date, in ms from `now`; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Statuses without a problem body that a retry with the same key or id may get past. */
const PASSING = new Set([429, 502, 503, 504]);

/** The error an answer other than a success stands for. */
export function answerError(answer: Answer, what: string): EmqClientError {
  const problem = isObject(answer.body) ? answer.body : {};
  const code = typeof problem.code === 'string' ? (problem.code as ProblemCode) : undefined;
  const detail = typeof problem.detail === 'string' ? problem.detail : undefined;
  const base = {
    status: answer.status,
    requestId: answer.requestId ?? stringOr(problem.requestId),
    id: stringOr(problem.id),
    written: writtenOf(problem.written),
    items: Array.isArray(problem.items) ? (problem.items as unknown[]) : undefined,
    retryAfterMs: answer.retryAfterMs,
  };
  if (code !== undefined && detail !== undefined) {
    // The service's own problem: its `retryable` is the contract's word; a 503 is retryable.
    const retryable = problem.retryable === true || answer.status === 503;
    return new EmqClientError(`${what}: ${detail}`, { ...base, code, retryable });
  }
  const [fallback, retryable, advice] = outside(answer.status);
  const said = isObject(answer.body) && typeof answer.body.message === 'string';
  const message = said
    ? ` ("${String((answer.body as { message: string }).message).slice(0, 200)}")`
    : '';
  return new EmqClientError(`${what}: HTTP ${answer.status}${message}. ${advice}`, {
    ...base,
    code: fallback,
    retryable,
  });
}

/** An answer that is not the service's problem: API Gateway's or a proxy's. */
function outside(status: number): [ClientCode, boolean, string] {
  if (status === 401 || status === 403) {
    return [
      'EMQ_ACCESS_DENIED',
      false,
      'The endpoint refused the caller: check the credentials and region the client signs with (IAM auth needs execute-api:Invoke on the route), or the token in `headers` (JWT auth).',
    ];
  }
  if (PASSING.has(status)) {
    return [
      'EMQ_UNAVAILABLE',
      true,
      'The endpoint is throttled or unavailable; a retry with the same idempotency key or id is safe.',
    ];
  }
  return [
    'EMQ_UNEXPECTED_RESPONSE',
    false,
    'The answer is not one the service gives: check that `endpoint` is the API or Function URL that serves echomq-lambda (with its stage, if any).',
  ];
}

/** The error for a request that got no answer (refused, dropped, timed out). */
export function networkError(what: string, cause: unknown): EmqClientError {
  const reason =
    cause instanceof Error ? (cause.cause instanceof Error ? cause.cause : cause) : undefined;
  const said = reason === undefined ? '' : ` (${reason.name}: ${reason.message})`;
  return new EmqClientError(
    `${what}: no answer${said}; the request may or may not have reached the service.`,
    { code: 'EMQ_NETWORK', status: undefined, retryable: true },
    { cause },
  );
}

function writtenOf(value: unknown): Written | undefined {
  return value === 'no' || value === 'maybe' || value === 'yes' ? value : undefined;
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
