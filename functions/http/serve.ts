/**
 * One HTTP request, end to end: read the event, match a route in the table of routes.ts,
 * serve its operation (operations.ts), answer. It never throws: every failure becomes a
 * problem response, and what was learnt on the way (route, queue, job id) is kept for the
 * request's log line.
 */
import type { Operation } from '../../openapi/operations.js';
import { EmqError, UnavailableError } from '../../src/outcomes/outcomes.js';
import type { BatchCounts } from './batch.js';
import { type EventFormat, type ReadEvent, readEvent } from './event.js';
import { type Answer, type HttpServices, type Learnt, operate } from './operations.js';
import {
  batchOutOfTime,
  jobLocation,
  type ProblemCode,
  problemOf,
  problemResponse,
  putAdvice,
  withoutBody,
} from './responses.js';
import { matchRoute, ROUTE_LIST } from './routes.js';

export type { HttpServices } from './operations.js';

/** What is known of a request so far; filled in as it is served, by `learn` alone. */
export interface Trace {
  readonly format?: EventFormat;
  /** The operation its route matched; none yet, or never (404, 405, a refused event). */
  readonly operation?: Operation;
  readonly queue?: string;
  readonly jobId?: string;
  /** A batch request's counts. */
  readonly batch?: BatchCounts;
  /** The path in front of `/queues/...`, for the job's URL. */
  readonly base?: string;
  /** A POST without Idempotency-Key: only its minted id can name its job to a retry. */
  readonly keyless?: boolean;
  /** When the answer is due (Date.now() ms): nothing is sent from then on. Default: none. */
  readonly deadlineMs?: number;
  /** Each admission's id as it was sent, by its index in the request. */
  readonly sent: ReadonlyMap<number, string>;
}

/** What is learnt of a request at one point: its facts, or an admission's id as it is sent. */
type Facts = Partial<Omit<Trace, 'sent' | 'deadlineMs'>> & {
  readonly sent?: { readonly index: number; readonly id: string };
};

/**
 * The one place a trace is written. It is kept as the request goes, not returned at its end,
 * because the answer at the deadline (outOfTime) is built from it while the request still runs.
 */
function learn(trace: Trace, { sent, ...facts }: Facts): void {
  Object.assign(trace, facts);
  if (sent !== undefined) (trace.sent as Map<number, string>).set(sent.index, sent.id);
}

/** A request served: its answer and what was learnt on the way. */
export interface Served extends Readonly<Trace>, Answer {}

export function newTrace(deadlineMs?: number): Trace {
  return {
    sent: new Map(),
    ...(deadlineMs === undefined ? {} : { deadlineMs }),
  };
}

/** Serves one event. `trace` is filled in as the request goes, so a caller can report a timeout. */
export async function serve(
  event: unknown,
  requestId: string,
  services: HttpServices,
  trace: Trace = newTrace(),
): Promise<Served> {
  const read = readEvent(event);
  let served: Served;
  try {
    served = await serveRoute(read, requestId, services, trace);
  } catch (error) {
    served = failed(trace, error, requestId);
  }
  return read.head ? { ...served, response: withoutBody(served.response) } : served;
}

/** The answer for a failure at any point of a request. */
export function failed(trace: Trace, error: unknown, requestId: string): Served {
  const problem = problemOf(error);
  // A keyless POST that may have written its job names it, and how to PUT it.
  const written = keylessMaybeWritten(trace, error) ? error.jobId : undefined;
  const answered =
    written === undefined
      ? problem
      : putAdvice(problem, jobLocation(trace.base ?? '', trace.queue ?? '', written));
  return {
    ...trace,
    ...(written === undefined ? {} : { jobId: written }),
    response: problemResponse(answered, requestId),
    kind: answered.code,
    error,
  };
}

/**
 * The answer at the invocation's deadline, from what was sent by then (nothing is sent after
 * it): a keyless POST names its job, a batch the items that may have been written.
 */
export function outOfTime(trace: Trace, requestId: string): Served {
  const advice = 'The request ran out of time; retry it (with the same Idempotency-Key).';
  if (trace.operation?.operationId === 'enqueueBatch' && trace.sent.size > 0) {
    const error = new UnavailableError(advice);
    const problem = batchOutOfTime(problemOf(error), trace.sent);
    return {
      ...trace,
      response: problemResponse(problem, requestId),
      kind: problem.code,
      error,
    };
  }
  const id = trace.sent.get(0);
  return failed(
    trace,
    new UnavailableError(advice, id === undefined ? {} : { jobId: id, written: 'maybe' }),
    requestId,
  );
}

/**
 * A keyless POST's retryable failure after its proposal may have been written: a new POST
 * would be a new request with a new key, so only a PUT of its id stays exactly once.
 */
function keylessMaybeWritten(
  trace: Trace,
  error: unknown,
): error is EmqError & { readonly jobId: string } {
  return (
    trace.keyless === true &&
    error instanceof EmqError &&
    error.retryable &&
    error.jobId !== undefined &&
    error.written !== 'no'
  );
}

/** Matches the request's route and runs its operation; what it throws, `failed` answers. */
async function serveRoute(
  read: ReadEvent,
  requestId: string,
  services: HttpServices,
  trace: Trace,
): Promise<Served> {
  if (read.refusal !== undefined) throw read.refusal;
  const { request } = read;
  learn(trace, { format: request.format });
  const match = matchRoute(request.method, request.segments, request.mount);
  if (match.kind === 'notFound') {
    return refused(trace, requestId, {
      status: 404,
      code: 'EMQ_ROUTE_NOT_FOUND',
      detail: ROUTE_LIST,
    });
  }
  if (match.kind === 'methodNotAllowed') {
    return refused(trace, requestId, {
      status: 405,
      code: 'EMQ_METHOD_NOT_ALLOWED',
      detail: `This path takes ${match.allow.join(' and ')}.`,
      allow: match.allow,
    });
  }
  const { operation, params, base } = match;
  // The log's `queue` and `id` are the path's variables of those names, where it has them.
  learn(trace, { operation, queue: params.queue, jobId: params.id, base });
  // Awaited before the trace is copied: the operation adds to it.
  const answered = await operate(operation.operationId)({
    request,
    params,
    base,
    requestId,
    services,
    admitting: {
      deadlineMs: trace.deadlineMs,
      onSend: (index, id) => learn(trace, { sent: { index, id } }),
    },
    learn: (learnt: Learnt) => learn(trace, learnt),
  });
  return { ...trace, ...answered };
}

function refused(
  trace: Trace,
  requestId: string,
  problem: { status: number; code: ProblemCode; detail: string; allow?: readonly string[] },
): Served {
  return {
    ...trace,
    kind: problem.code,
    response: problemResponse({ ...problem, retryable: false }, requestId),
  };
}
