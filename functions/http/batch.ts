/**
 * `POST /queues/{queue}/jobs/batch` (README.md, "The HTTP face"): the body read for its shape,
 * every item checked by the core before any I/O (one bad item refuses the body), then one admission
 * for all (one call per queue, one round trip per node), one result per item in input order.
 * 200 unless every item must be retried: then 503 with Retry-After, and the body lists every
 * item's id and whether it may have been written, so that following its advice (send the
 * batch again, each listed item with its id) never admits a job twice. A batch whose every
 * item failed for one server-side cause a retry cannot mend answers that cause (500), as a
 * single request would (docs/reliability.md).
 */
import {
  type AdmissionTarget,
  type Admitting,
  admitPrepared,
} from '../../src/admission/admission.js';
import type { AdmissionResult } from '../../src/admission/admission-calls.js';
import type { QueueName } from '../../src/keyspace/keyspace.js';
import { EmqError, RetryableError } from '../../src/outcomes/outcomes.js';
import { checkedBatch } from './batch-body.js';
import {
  type HttpResponse,
  type Problem,
  problemBody,
  problemOf,
  problemResponse,
  type RetryItem,
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
  /**
   * Set when every item must be retried, or every item failed for one server-side cause: the
   * batch is answered that problem.
   */
  readonly problem?: Problem;
  /** That one server-side cause, for the log line. */
  readonly error?: EmqError;
}

/** Parses (throws before any I/O on a bad body), admits, answers. */
export async function serveBatch(
  queue: QueueName,
  body: Buffer,
  requestId: string,
  admission: AdmissionTarget,
  admitting: Admitting = {},
): Promise<BatchServed> {
  const prepared = checkedBatch(queue, body, admission.config, { id: requestId });
  const results = await admitPrepared(admission, prepared, admitting);
  const counts = countsOf(results);
  if (results.every((result) => result instanceof RetryableError)) {
    const problem = allRetried(results as RetryableError[]);
    return { response: problemResponse(problem, requestId), counts, problem };
  }
  const cause = oneServerCause(results);
  if (cause !== undefined) {
    const problem = allRefused(cause, results as EmqError[]);
    return { response: problemResponse(problem, requestId), counts, problem, error: cause };
  }
  return {
    counts,
    response: respond(
      200,
      { 'content-type': 'application/json', 'x-request-id': requestId },
      {
        queue,
        results: results.map((result) =>
          result instanceof EmqError
            ? {
                ...(result.retryable && result.jobId ? { id: result.jobId } : {}),
                error: problemBody(problemOf(result)),
              }
            : { id: result.id, status: result.status },
        ),
      },
    ),
  };
}

/**
 * The cause every item failed for, when it is one and on the server's side and a retry cannot
 * mend it (a user that may not call the library: EMQ_CONFIG). A 200 would hide from the
 * API's 5xx alarms a deployment that admits nothing; items failing for their own reasons
 * (conflicts), or some admitted, keep the 200 and its per-item results.
 */
export function oneServerCause(results: readonly AdmissionResult[]): EmqError | undefined {
  const [first] = results;
  if (!(first instanceof EmqError) || first.retryable || first.status < 500) return undefined;
  const same = results.every((result) => result instanceof EmqError && result.code === first.code);
  return same ? first : undefined;
}

/** The batch answered as its one cause: that cause's problem, saying it held for every item. */
function allRefused(cause: EmqError, errors: readonly EmqError[]): Problem {
  const problem = problemOf(cause);
  const maybe = errors.filter((error) => error.written !== 'no').length;
  const written = maybe === 0 ? 'nothing was written' : `${maybe} of them may have been written`;
  return {
    ...problem,
    detail: `${problem.detail} Every job of the batch (${errors.length}) failed for this one cause; ${written}.`,
  };
}

/** Every item must be retried: the answer names each one's id and what may have been written. */
function allRetried(errors: readonly RetryableError[]): Problem {
  const first = problemOf(errors[0]);
  const items: RetryItem[] = errors.map((error, index) => ({
    index,
    code: error.code,
    written: error.written,
    ...(error.jobId === undefined ? {} : { id: error.jobId }),
  }));
  const maybe = items.filter((item) => item.written !== 'no').length;
  return {
    ...first,
    detail: `No job of the batch was confirmed (${maybe} of ${items.length} may have been written): ${first.detail} Send the batch again with each item that has an "id" in "items" given that id in place of its idempotencyKey (an item has one or the other): no job is then admitted twice.`,
    retryAfterSeconds: Math.max(...errors.map((error) => error.retryAfterSeconds)),
    retryItems: items,
  };
}

function countsOf(results: readonly AdmissionResult[]): BatchCounts {
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
