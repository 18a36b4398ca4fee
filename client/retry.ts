/**
 * The retry budget of one call: how many requests, how long in all, how long each may take,
 * and how long to wait between them. A retry is only ever sent with the same key or id as the
 * request before it (the callers of `retrying` keep them), so it can never make a second job;
 * the budget only decides when to stop trying and hand the error to the caller.
 */
import { EmqClientError, invalid } from './errors.js';

export interface RetryOptions {
  /** Requests per call, the first included. Default 5; 1 turns retries off. */
  readonly attempts?: number;
  /** The whole call's budget in ms, waits included: no retry starts after it. Default 60000. */
  readonly deadlineMs?: number;
  /** One request's time limit in ms; past it, it counts as a network failure. Default 30000. */
  readonly timeoutMs?: number;
  /** The backoff's first step in ms; it doubles with each retry. Default 250. */
  readonly baseDelayMs?: number;
  /** The longest wait between two requests, `Retry-After` included. Default 10000. */
  readonly maxDelayMs?: number;
}

export interface RetryPolicy {
  readonly attempts: number;
  readonly deadlineMs: number;
  readonly timeoutMs: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** [0, 1): the jitter's source. */
  readonly random: () => number;
}

export const RETRY_DEFAULTS = {
  attempts: 5,
  deadlineMs: 60_000,
  timeoutMs: 30_000,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
} as const;

/** The options with their defaults; throws EMQ_INVALID_CONFIG naming a value out of bounds. */
export function retryPolicy(options: RetryOptions = {}, random = Math.random): RetryPolicy {
  const policy = { ...RETRY_DEFAULTS, ...options, random };
  for (const name of Object.keys(RETRY_DEFAULTS) as (keyof typeof RETRY_DEFAULTS)[]) {
    const value = policy[name];
    const least = name === 'attempts' || name === 'timeoutMs' ? 1 : 0;
    if (!Number.isFinite(value) || value < least) {
      throw invalid(
        'EMQ_INVALID_CONFIG',
        `retry.${name} must be a number of at least ${least} (got ${value}).`,
      );
    }
  }
  return policy;
}

/**
 * The wait before retry number `retry` (1 for the first): at least what the answer asked
 * (`Retry-After`), plus a random share of an exponential backoff, so callers that failed
 * together do not come back together; never more than `maxDelayMs`.
 */
export function delayBefore(policy: RetryPolicy, retry: number, retryAfterMs?: number): number {
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  const floor = Math.min(policy.maxDelayMs, retryAfterMs ?? 0);
  return Math.min(policy.maxDelayMs, floor + policy.random() * backoff);
}

/**
 * Runs `send` until it returns, throws an error that is not retryable, or the budget is spent;
 * the error thrown last carries the attempt count and the key. `send` gets the time it may take.
 */
export async function retrying<T>(
  policy: RetryPolicy,
  send: (timeoutMs: number) => Promise<T>,
  key: string | undefined,
): Promise<T> {
  const start = Date.now();
  for (let attempt = 1; ; attempt++) {
    const left = policy.deadlineMs - (Date.now() - start);
    try {
      return await send(Math.max(1, Math.min(policy.timeoutMs, left)));
    } catch (error) {
      if (!(error instanceof EmqClientError)) throw error;
      if (!error.retryable || attempt >= policy.attempts) throw error.withCall(attempt, key);
      const wait = delayBefore(policy, attempt, error.retryAfterMs);
      if (Date.now() - start + wait >= policy.deadlineMs) throw error.withCall(attempt, key);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
