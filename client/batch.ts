/**
 * One batch request (README.md, "The HTTP face") from the caller's side: its jobs as items the
 * service takes, each keyed (the caller's key or id, else a minted key), sent until every job is
 * admitted, refused, or out of budget; a retry holds only the jobs that may pass, with their keys.
 */
import { randomUUID } from 'node:crypto';
import { type Answer, answerError, isObject } from './answers.js';
import { batchBody, type SerializedItem } from './batch-split.js';
import { bothGiven, checkId, checkKey, type Payload } from './checks.js';
import type { Admitted, BatchItem, BatchResponse } from './contract.js';
import { EmqClientError } from './errors.js';
import { JSON_TYPE, jobsPath, type Send, type ServiceRequest } from './service-request.js';

/** What the client's enqueue takes besides the payload. */
export interface EnqueueOptions {
  /** Your own identifier for this job: every call with it maps to one job (for the service's record life, one hour by default). */
  readonly idempotencyKey?: string;
  /** A job id you minted (`mintId`, `emq id`): the job is admitted under it (PUT). */
  readonly id?: string;
}

export interface BatchJob extends EnqueueOptions {
  readonly payload: Payload;
}

/** One job of a batch: admitted, or its error (a refusal, or a retryable failure that outlasted the budget). */
export type BatchOutcome =
  | { readonly id: string; readonly status: Admitted['status']; readonly error?: undefined }
  | {
      readonly id?: string | undefined;
      readonly error: EmqClientError;
      readonly status?: undefined;
    };

/**
 * One batch request's jobs (the caller's from `offset` on); the jobs that may pass on
 * another try are sent again.
 */
export async function sendBatch(
  send: Send,
  queue: string,
  items: readonly SerializedItem[],
  offset: number,
): Promise<BatchOutcome[]> {
  const outcomes: (BatchOutcome | undefined)[] = items.map(() => undefined);
  const retryable = new Map<number, EmqClientError>();
  let pending = items.map((_, index) => index);
  let attempts = 0;
  const request: ServiceRequest = {
    what: `Enqueue a batch to queue ${queue}`,
    method: 'POST',
    path: [...jobsPath(queue), 'batch'],
    headers: { 'content-type': JSON_TYPE },
    // Made for each attempt: it holds only the jobs still pending.
    body: () => {
      attempts += 1;
      return batchBody(pending.map((index) => items[index] as SerializedItem));
    },
  };
  try {
    await send(request, (answer) => {
      const results = isObject(answer.body) ? answer.body.results : undefined;
      if (!Array.isArray(results) || results.length !== pending.length) return undefined;
      const again: number[] = [];
      (results as BatchResponse['results']).forEach((result, at) => {
        const index = pending[at] as number;
        if (!('error' in result)) {
          outcomes[index] = { id: result.id, status: result.status };
          return;
        }
        const error = itemError(answer, result.error, offset + index, result.id);
        if (error.retryable) {
          again.push(index);
          retryable.set(index, error);
        } else {
          const key = items[index]?.item.idempotencyKey;
          outcomes[index] = { id: result.id, error: error.withCall(attempts, key) };
        }
      });
      pending = again;
      // Thrown to the retry loop: the jobs left are sent again after the wait.
      if (again.length > 0) throw retryable.get(again[0] as number);
      return true;
    });
  } catch (error) {
    // Only a budget spent on retryable failures leaves jobs pending, each with its own error.
    if (!(error instanceof EmqClientError) || !error.retryable) throw error;
    for (const index of pending) {
      const { item } = items[index] as SerializedItem;
      const last = (retryable.get(index) ?? error).withCall(attempts, item.idempotencyKey);
      outcomes[index] = { id: item.id ?? last.id, error: last };
    }
  }
  return outcomes as BatchOutcome[];
}

/** A batch job as the service takes it; a job with neither key nor id gets a minted key. */
export function batchItem(job: BatchJob, index: number): BatchItem {
  if (job.id !== undefined && job.idempotencyKey !== undefined) throw bothGiven(index);
  if (job.id !== undefined) checkId(job.id, index);
  const key = job.id === undefined ? (job.idempotencyKey ?? randomUUID()) : undefined;
  if (key !== undefined) checkKey(key, index);
  const text = typeof job.payload === 'string';
  return {
    payload: text
      ? (job.payload as string)
      : Buffer.from(job.payload as Uint8Array).toString('base64'),
    ...(text ? {} : { encoding: 'base64' as const }),
    ...(job.id === undefined ? { idempotencyKey: key } : { id: job.id }),
  };
}

/** A job's error inside a batch answer, as its own EmqClientError. */
function itemError(
  answer: Answer,
  problem: unknown,
  index: number,
  id: string | undefined,
): EmqClientError {
  const status = isObject(problem) && typeof problem.status === 'number' ? problem.status : 500;
  return answerError(
    {
      status,
      requestId: answer.requestId,
      retryAfterMs: answer.retryAfterMs,
      body: { ...(isObject(problem) ? problem : {}), id },
    },
    `Job ${index} of the batch`,
  );
}
