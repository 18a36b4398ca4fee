/**
 * The answers of README.md "The HTTP face": JSON on success, RFC 9457 problem details on failure,
 * the request id on every response and Retry-After on every retryable one. One result shape serves
 * all three fronts (payload 1.0 and 2.0, Function URLs).
 */
import { isUtf8 } from 'node:buffer';
import type { Admitted } from '../../src/admission/admission-calls.js';
import type { JobRow } from '../../src/jobs.js';
import {
  EmqError,
  type ErrorCode,
  RetryableError,
  type Written,
} from '../../src/outcomes/outcomes.js';
import { BatchRefusal, type ItemFault } from './batch-body.js';

export interface HttpResponse {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly isBase64Encoded: false;
}

/** The EmqError codes plus the three that only HTTP has. */
export type ProblemCode =
  | ErrorCode
  | 'EMQ_JOB_NOT_FOUND'
  | 'EMQ_ROUTE_NOT_FOUND'
  | 'EMQ_METHOD_NOT_ALLOWED';

export interface Problem {
  readonly status: number;
  readonly code: ProblemCode;
  /** Told to the caller: it names no host and echoes nothing a server said. */
  readonly detail: string;
  readonly retryable: boolean;
  /** Sent as Retry-After on a retryable problem. Default: none. */
  readonly retryAfterSeconds?: number | undefined;
  /** Sent as Allow on a 405. Default: none. */
  readonly allow?: readonly string[] | undefined;
  /** A refused batch: the items at fault. Default: none. */
  readonly items?: readonly ItemFault[] | undefined;
  /** A batch whose every item must be retried: each item's id and what may have been written. Default: none. */
  readonly retryItems?: readonly RetryItem[] | undefined;
  /** The job a retryable problem concerns, where there is one: a retry may name it (PUT). Default: none. */
  readonly id?: string | undefined;
  /** Whether that job may have been written. Default: none. */
  readonly written?: Written | undefined;
  /** The one retry that stays exactly once, where a plain resend would not. Default: none. */
  readonly retry?: { readonly method: 'PUT'; readonly path: string } | undefined;
}

/** One item of a batch that must be retried as a whole. */
export interface RetryItem {
  readonly index: number;
  readonly code: ErrorCode;
  /** The id the item proposed or named; absent when none was minted yet (nothing was sent). */
  readonly id?: string;
  readonly written: Written;
}

const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  422: 'Unprocessable Content',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** A failure as a problem. An error that is not an EmqError is never described: it may name a host. */
export function problemOf(error: unknown): Problem {
  if (error instanceof EmqError) {
    const named = error.retryable && error.jobId !== undefined;
    return {
      status: error.status,
      code: error.code,
      // The outcome table keeps operator-only messages (node ids, wire identities, settings) out.
      detail: error.publicDetail,
      retryable: error.retryable,
      retryAfterSeconds: error instanceof RetryableError ? error.retryAfterSeconds : undefined,
      items: error instanceof BatchRefusal ? error.items : undefined,
      id: named ? error.jobId : undefined,
      written: named ? error.written : undefined,
    };
  }
  return {
    status: 500,
    code: 'EMQ_UNKNOWN',
    detail:
      'The request failed in a way this function does not understand; nothing can be assumed written. Quote the request id to an operator.',
    retryable: false,
  };
}

export function problemResponse(problem: Problem, requestId: string): HttpResponse {
  const headers: Record<string, string> = {
    'content-type': 'application/problem+json',
    'x-request-id': requestId,
  };
  if (problem.retryAfterSeconds !== undefined) {
    headers['retry-after'] = String(problem.retryAfterSeconds);
  }
  if (problem.allow !== undefined) headers.allow = problem.allow.join(', ');
  return respond(problem.status, headers, { ...problemBody(problem), requestId });
}

/** The RFC 9457 members of a problem (a batch item's `error` carries them without a request id). */
export function problemBody(problem: Problem): Record<string, unknown> {
  return {
    title: TITLES[problem.status] ?? 'Error',
    status: problem.status,
    detail: problem.detail,
    code: problem.code,
    retryable: problem.retryable,
    ...(problem.id === undefined ? {} : { id: problem.id, written: problem.written }),
    ...(problem.items === undefined ? {} : { items: problem.items }),
    ...(problem.retryItems === undefined ? {} : { items: problem.retryItems }),
    ...(problem.retry === undefined ? {} : { retry: problem.retry }),
  };
}

/**
 * A keyless POST that may have been written: a resent POST would be a new request and could
 * make a second job; a PUT of the same body to the id it proposed answers 200 for the job that
 * landed, or writes it (201) when it did not.
 */
export function putAdvice(problem: Problem, path: string): Problem {
  return {
    ...problem,
    detail: `The job may have been written as ${problem.id}. Retry with PUT ${path} and the same body (200 if it was written, 201 if not); a new POST could make a second job.`,
    retry: { method: 'PUT', path },
  };
}

/** A batch that ran out of time: the items sent by then, which may have been written. */
export function batchOutOfTime(problem: Problem, sent: ReadonlyMap<number, string>): Problem {
  const items: RetryItem[] = [...sent].map(([index, id]) => ({
    index,
    code: problem.code as ErrorCode,
    id,
    written: 'maybe',
  }));
  return {
    ...problem,
    detail: `The batch ran out of time; ${items.length} of its items may have been written. Send the batch again with each item listed in "items" given its "id" in place of its idempotencyKey (the others as they were): no job is then admitted twice.`,
    retryItems: items.sort((a, b) => a.index - b.index),
  };
}

/** 201 for a new job, 200 for a duplicate or replay; both point at the job's own URL. */
export function admittedResponse(
  admitted: Admitted,
  location: string,
  requestId: string,
): HttpResponse {
  const { queue, id, status } = admitted;
  return respond(
    status === 'enqueued' ? 201 : 200,
    { 'content-type': 'application/json', location, 'x-request-id': requestId },
    { queue, id, status },
  );
}

/**
 * A job read back. JSON cannot carry raw bytes, so the payload is sent as text when it is
 * UTF-8 and as base64 otherwise, and `encoding` says which.
 */
export function jobResponse(
  queue: string,
  id: string,
  row: JobRow,
  requestId: string,
): HttpResponse {
  const text = isUtf8(row.payload);
  return respond(
    200,
    { 'content-type': 'application/json', 'x-request-id': requestId },
    {
      queue,
      id,
      state: row.state,
      attempts: row.attempts,
      payload: row.payload.toString(text ? 'utf8' : 'base64'),
      encoding: text ? 'utf8' : 'base64',
    },
  );
}

/** HEAD: the same status and headers as the GET, and no body. */
export function withoutBody(response: HttpResponse): HttpResponse {
  return { ...response, body: '' };
}

/** The path of a job, under the same prefix the caller used. */
export function jobLocation(base: string, queue: string, id: string): string {
  return `${base}/queues/${encodeURIComponent(queue)}/jobs/${encodeURIComponent(id)}`;
}

export function respond(
  statusCode: number,
  headers: Readonly<Record<string, string>>,
  body: unknown,
): HttpResponse {
  const sent: Record<string, string> = {};
  for (const name in headers) sent[name] = headerValue(headers[name] as string);
  return { statusCode, headers: sent, body: JSON.stringify(body), isBase64Encoded: false };
}

/** What a header may carry as is: visible ASCII and the space (RFC 9110 field values). */
const PLAIN_HEADER_VALUE = /^[\x20-\x7e]*$/;

/**
 * A header value as sent: anything but visible ASCII and the space (CR and LF above all,
 * which would end the header and start another) is percent-encoded as UTF-8. Every value
 * passes here, whatever it was built from (docs/security.md, "Fail closed").
 */
export function headerValue(value: string): string {
  if (PLAIN_HEADER_VALUE.test(value)) return value;
  return value.replace(/[^\x20-\x7e]/gu, (char) =>
    [...Buffer.from(char, 'utf8')]
      .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
      .join(''),
  );
}
