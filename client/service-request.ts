/**
 * One request of the client to the service, as the retry loop sends it: what it does, its route
 * and its body. Every attempt of a request carries the same key or id, so no retry can make a
 * second job.
 */
import type { Answer } from './answers.js';

/** One request to the service; every attempt sends it with the same key or id. */
export interface ServiceRequest {
  /** What the request does, as the error message begins. */
  readonly what: string;
  readonly method: 'GET' | 'POST' | 'PUT';
  /** The route's path segments (not yet encoded), under the endpoint's path. */
  readonly path: readonly string[];
  /** Bytes, or JSON made for each attempt. Default none. */
  readonly body?: Uint8Array | (() => Uint8Array);
  readonly headers?: Readonly<Record<string, string>>;
  /** The Idempotency-Key sent, for the error's advice. Default none. */
  readonly key?: string;
}

export const JSON_TYPE = 'application/json';
export const TEXT_TYPE = 'text/plain; charset=utf-8';
export const BYTES_TYPE = 'application/octet-stream';

/**
 * Sends a request until it is answered with a success `accept` takes (it returns a value other
 * than undefined), a refusal, or the budget is spent.
 */
export type Send = <T>(
  request: ServiceRequest,
  accept: (answer: Answer) => T | undefined,
) => Promise<T>;

/** The segments of a queue's jobs; requestUrl encodes each. */
export function jobsPath(queue: string): string[] {
  return ['queues', queue, 'jobs'];
}
