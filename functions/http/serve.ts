/**
 * One HTTP request, end to end: parse the event, match a route, check the input, call the
 * core, answer. It never throws: every failure becomes a problem response, and what was
 * learnt on the way (route, queue, job id) is kept for the request's log line.
 */
import {
  type AdmissionTarget,
  assertJobId,
  assertQueue,
  EmqError,
  enqueue,
  InvalidInputError,
  readJob,
  UnavailableError,
} from '../../src/index.js';
import { type BatchCounts, serveBatch } from './batch.js';
import { type EventFormat, type HttpRequest, isHeadEvent, parseEvent } from './event.js';
import {
  admittedResponse,
  batchOutOfTime,
  type HttpResponse,
  jobLocation,
  jobResponse,
  type ProblemCode,
  problemOf,
  problemResponse,
  putAdvice,
  withoutBody,
} from './responses.js';
import { matchRoute, type RouteName } from './routes.js';

/** What the request needs of its container; tests pass their own. */
export interface HttpServices {
  /** The container's configuration and its connection, opened on first use (a failed open is retried next time). */
  admission(): AdmissionTarget;
}

/** What a job id in the path of a PUT should be, said where it is refused. */
const PUT_ID_ADVICE =
  'Ids are minted by the service: POST /queues/{queue}/jobs without an id to get one, or mint one with `emq id` and PUT it soon. To key the job by your own identifier (an order number), POST it with that identifier in the Idempotency-Key header.';
/** What a job id in the path of a GET or HEAD should be. */
const GET_ID_ADVICE = 'Use the id a POST or PUT answered (its Location header).';

/** What is known of a request so far; filled in as it is served. */
export interface Trace {
  format?: EventFormat;
  route: RouteName | 'unmatched';
  queue?: string;
  jobId?: string;
  /** A batch request's counts. */
  batch?: BatchCounts;
  /** The path in front of `/queues/...`, for the job's URL. */
  base?: string;
  /** A POST without Idempotency-Key: only its minted id can name its job to a retry. */
  keyless?: boolean;
  /** When the answer is due (Date.now() ms): nothing is sent from then on. Default: none. */
  deadlineMs?: number;
  /** Each admission's id as it was sent, by its index in the request. */
  readonly sent: Map<number, string>;
}

/** The outcome named in logs and metrics: a success word or the problem's code. */
export type Outcome = 'enqueued' | 'duplicate' | 'found' | 'batch' | ProblemCode;

export interface Served extends Readonly<Trace> {
  readonly response: HttpResponse;
  readonly outcome: Outcome;
  /** The failure behind a problem response, for the log's error class and code. */
  readonly error?: unknown;
}

export function newTrace(deadlineMs?: number): Trace {
  return {
    route: 'unmatched',
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
  let served: Served;
  try {
    served = await route(event, requestId, services, trace);
  } catch (error) {
    served = failed(trace, error, requestId);
  }
  return isHeadEvent(event) ? { ...served, response: withoutBody(served.response) } : served;
}

/** The answer for a failure at any point of a request. */
export function failed(trace: Trace, error: unknown, requestId: string): Served {
  let problem = problemOf(error);
  if (keylessMaybeWritten(trace, error)) {
    trace.jobId = error.jobId;
    problem = putAdvice(problem, jobLocation(trace.base ?? '', trace.queue ?? '', error.jobId));
  }
  return {
    ...trace,
    response: problemResponse(problem, requestId),
    outcome: problem.code,
    error,
  };
}

/**
 * The answer at the invocation's deadline, from what was sent by then (nothing is sent after
 * it): a keyless POST names its job, a batch the items that may have been written.
 */
export function outOfTime(trace: Trace, requestId: string): Served {
  const advice = 'The request ran out of time; retry it (with the same Idempotency-Key).';
  if (trace.route === 'POST /queues/{queue}/jobs/batch' && trace.sent.size > 0) {
    const error = new UnavailableError(advice);
    const problem = batchOutOfTime(problemOf(error), trace.sent);
    return {
      ...trace,
      response: problemResponse(problem, requestId),
      outcome: problem.code,
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
    trace.route === 'POST /queues/{queue}/jobs' &&
    trace.keyless === true &&
    error instanceof EmqError &&
    error.retryable &&
    error.jobId !== undefined &&
    error.written !== 'no'
  );
}

async function route(
  event: unknown,
  requestId: string,
  services: HttpServices,
  trace: Trace,
): Promise<Served> {
  const request = parseEvent(event);
  trace.format = request.format;
  const match = matchRoute(request.method, request.segments, request.mount);
  if (match.kind === 'notFound') {
    return refused(trace, requestId, {
      status: 404,
      code: 'EMQ_ROUTE_NOT_FOUND',
      detail:
        'No such route. Routes: POST /queues/{queue}/jobs, POST /queues/{queue}/jobs/batch, PUT, GET and HEAD /queues/{queue}/jobs/{id}.',
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
  trace.route = match.route;
  trace.queue = match.queue;
  trace.base = match.base;
  const admitting = {
    deadlineMs: trace.deadlineMs,
    onSend: (index: number, id: string) => trace.sent.set(index, id),
  };
  assertQueue(match.queue);
  const admission = services.admission();

  if (match.kind === 'get') {
    trace.jobId = match.id;
    assertJobId(match.id, GET_ID_ADVICE);
    const row = await readJob(await admission.connection(), match.queue, match.id);
    // serve() drops the body of every HEAD answer, this one included.
    return row === null
      ? refused(trace, requestId, {
          status: 404,
          code: 'EMQ_JOB_NOT_FOUND',
          detail: `Queue ${match.queue} has no job ${match.id} (never enqueued, or already consumed).`,
        })
      : {
          ...trace,
          outcome: 'found',
          response: jobResponse(match.queue, match.id, row, requestId),
        };
  }
  if (match.kind === 'batch') {
    if (request.headers['idempotency-key'] !== undefined) {
      throw new InvalidInputError(
        'EMQ_INVALID_REQUEST',
        'Idempotency-Key applies to single POSTs; give each job of a batch its own "idempotencyKey" (or "id").',
      );
    }
    const batch = await serveBatch(match.queue, request.body, requestId, admission, admitting);
    trace.batch = batch.counts;
    return { ...trace, outcome: batch.problem?.code ?? 'batch', response: batch.response };
  }
  if (match.kind === 'put') {
    trace.jobId = match.id;
    // The id is the request's key (SPEC §5): an Idempotency-Key header adds nothing.
    const put = {
      queue: match.queue,
      payload: request.body,
      id: match.id,
      idAdvice: PUT_ID_ADVICE,
    };
    const admitted = await enqueue(admission, put, { ...admitting, id: requestId });
    const location = jobLocation(match.base, match.queue, admitted.id);
    return {
      ...trace,
      outcome: admitted.status,
      response: admittedResponse(admitted, location, requestId),
    };
  }
  const idempotencyKey = idempotencyKeyOf(request);
  trace.keyless = idempotencyKey === undefined;
  const admitted = await enqueue(
    admission,
    { queue: match.queue, payload: request.body, idempotencyKey, origin: 'http' },
    { ...admitting, id: requestId },
  );
  trace.jobId = admitted.id;
  const location = jobLocation(match.base, match.queue, admitted.id);
  return {
    ...trace,
    outcome: admitted.status,
    response: admittedResponse(admitted, location, requestId),
  };
}

/**
 * The POST's Idempotency-Key, once. Sent twice it is refused rather than joined: payload 1.0
 * shows the repetition, payload 2.0 and Function URLs join the values with a comma, so a comma
 * is refused too (a key is printable ASCII without spaces or commas).
 */
function idempotencyKeyOf(request: HttpRequest): string | undefined {
  const key = request.headers['idempotency-key'];
  if (request.repeated.has('idempotency-key') || key?.includes(',')) {
    throw new InvalidInputError(
      'EMQ_INVALID_REQUEST',
      'Send one Idempotency-Key header, without commas: a repeated header (which API Gateway joins with commas) names no single request.',
    );
  }
  return key;
}

function refused(
  trace: Trace,
  requestId: string,
  problem: { status: number; code: ProblemCode; detail: string; allow?: readonly string[] },
): Served {
  return {
    ...trace,
    outcome: problem.code,
    response: problemResponse({ ...problem, retryable: false }, requestId),
  };
}
