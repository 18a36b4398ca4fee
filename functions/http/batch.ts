/**
 * `POST /queues/{queue}/jobs/batch` (SPEC §8a): the whole body checked first, then one
 * `enqueueMany` call (one round trip per node), and one result per item in input order.
 * 200 unless every item must be retried: then 503 with Retry-After, as a single POST would.
 */
import {
  type Admitted,
  type Connection,
  classifyFailure,
  EmqError,
  enqueueMany,
  RetryableError,
} from '../../src/index.js';
import { type BatchLimits, type NamespacedRequest, parseBatch } from './batch-body.js';
import {
  type HttpResponse,
  type Problem,
  problemBody,
  problemOf,
  problemResponse,
  respond,
} from './responses.js';

/** What a batch did, for its log line. */
export interface BatchCounts {
  readonly items: number;
  readonly enqueued: number;
  readonly duplicate: number;
  readonly failed: number;
}

export interface BatchServed {
  readonly response: HttpResponse;
  readonly counts: BatchCounts;
  /** Set when every item must be retried: the batch's outcome is that problem. */
  readonly problem?: Problem;
}

export interface BatchContext {
  readonly queue: string;
  readonly body: Buffer;
  readonly requestId: string;
  readonly limits: BatchLimits;
  readonly connection: () => Promise<Connection>;
}

/** Parses (throws before any I/O on a bad body), admits, answers. */
export async function serveBatch(batch: BatchContext): Promise<BatchServed> {
  const requests = parseBatch(batch.queue, batch.body, batch.requestId, batch.limits);
  const results = await admitAll(requests, batch.connection);
  const counts = countsOf(results);
  if (results.every((result) => result instanceof RetryableError)) {
    const problem = allRetried(results as RetryableError[]);
    return { response: problemResponse(problem, batch.requestId), counts, problem };
  }
  return {
    counts,
    response: respond(
      200,
      { 'content-type': 'application/json', 'x-request-id': batch.requestId },
      {
        queue: batch.queue,
        results: results.map((result) =>
          result instanceof EmqError
            ? { error: problemBody(problemOf(result)) }
            : { id: result.id, status: result.status },
        ),
      },
    ),
  };
}

/** A connection that cannot open, or a call that throws, fails every item alike. */
async function admitAll(
  requests: readonly NamespacedRequest[],
  connection: () => Promise<Connection>,
): Promise<(Admitted | EmqError)[]> {
  try {
    return await enqueueMany(await connection(), requests);
  } catch (error) {
    const failure = classifyFailure(error);
    return requests.map(() => failure);
  }
}

/** The first item's problem stands for the batch; Retry-After is the longest any item asks. */
function allRetried(errors: readonly RetryableError[]): Problem {
  const first = problemOf(errors[0]);
  const wait = Math.max(...errors.map((error) => error.retryAfterSeconds));
  return {
    ...first,
    detail: `No job of the batch was admitted: ${first.detail} Retry the whole batch (each item keeps its id or idempotencyKey).`,
    retryAfterSeconds: wait,
  };
}

function countsOf(results: readonly (Admitted | EmqError)[]): BatchCounts {
  let enqueued = 0;
  let duplicate = 0;
  for (const result of results) {
    if (result instanceof EmqError) continue;
    if (result.status === 'enqueued') enqueued += 1;
    else duplicate += 1;
  }
  return {
    items: results.length,
    enqueued,
    duplicate,
    failed: results.length - enqueued - duplicate,
  };
}
