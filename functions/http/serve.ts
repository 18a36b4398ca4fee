/**
 * One HTTP request, end to end: parse the event, match a route, check the input, call the
 * core, answer. It never throws: every failure becomes a problem response, and what was
 * learnt on the way (route, queue, job id) is kept for the request's log line.
 */
import {
  type AdmissionTarget,
  assertJobId,
  assertQueue,
  enqueue,
  InvalidInputError,
  readJob,
} from '../../src/index.js';
import { type BatchCounts, serveBatch } from './batch.js';
import { type EventFormat, type HttpRequest, isHeadEvent, parseEvent } from './event.js';
import {
  admittedResponse,
  type HttpResponse,
  jobLocation,
  jobResponse,
  type ProblemCode,
  problemOf,
  problemResponse,
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
}

/** The outcome named in logs and metrics: a success word or the problem's code. */
export type Outcome = 'enqueued' | 'duplicate' | 'found' | 'batch' | ProblemCode;

export interface Served extends Readonly<Trace> {
  readonly response: HttpResponse;
  readonly outcome: Outcome;
  /** The failure behind a problem response, for the log's error class and code. */
  readonly error?: unknown;
}

export function newTrace(): Trace {
  return { route: 'unmatched' };
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
  const problem = problemOf(error);
  return {
    ...trace,
    response: problemResponse(problem, requestId),
    outcome: problem.code,
    error,
  };
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
    const batch = await serveBatch(match.queue, request.body, requestId, admission);
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
    const admitted = await enqueue(admission, put, { id: requestId });
    const location = jobLocation(match.base, match.queue, admitted.id);
    return {
      ...trace,
      outcome: admitted.status,
      response: admittedResponse(admitted, location, requestId),
    };
  }
  const admitted = await enqueue(
    admission,
    {
      queue: match.queue,
      payload: request.body,
      idempotencyKey: idempotencyKeyOf(request),
      origin: 'http',
    },
    { id: requestId },
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
