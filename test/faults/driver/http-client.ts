/**
 * One API client of the load: POST /queues/{queue}/jobs with its own Idempotency-Key, resent
 * with the same key whenever the answer is 503, as a well-behaved client does. The events are
 * the recorded API Gateway / Function URL shapes, rotating over the three fronts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { handler } from '../../../functions/http/handler.js';
import {
  FIXTURE_IDEMPOTENCY_KEY,
  FIXTURE_QUEUE,
  type FixtureName,
  fixture,
  type HttpEventJson,
  withBody,
} from '../../fixtures/http/events.js';
import { invoke } from '../../fixtures/http/invoke.js';
import type { Ledger, LogicalRequest } from './ledger.js';

export interface RetryPolicy {
  /** Sends of one request before its client gives up. Default 600. */
  readonly maxAttempts?: number;
  /** Pause before a resend, in ms; stands in for Retry-After, scaled down for tests. Default 20. */
  readonly delayMs?: number;
}

const FRONTS: readonly FixtureName[] = [
  'v2-post-idempotency-key',
  'v1-post-idempotency-key',
  'url-post-idempotency-key',
];

const templates = new Map<FixtureName, string>();

/** The request's event: its front, queue, key and body (binary bodies go base64, as API Gateway sends them). */
export function httpEventOf(request: LogicalRequest, key: string): HttpEventJson {
  const front = FRONTS[request.n % FRONTS.length] as FixtureName;
  let template = templates.get(front);
  if (template === undefined) {
    template = JSON.stringify(fixture(front));
    templates.set(front, template);
  }
  const event = JSON.parse(
    template.replaceAll(FIXTURE_QUEUE, request.queue).replaceAll(FIXTURE_IDEMPOTENCY_KEY, key),
  ) as HttpEventJson;
  const text = request.n % 2 === 0;
  return withBody(event, text ? request.payload.toString('utf8') : request.payload);
}

/**
 * Sends one logical request until it is accepted, refused, or its client gives up; it stops
 * resending (the request stays open) once `abandoned` says the scenario has failed.
 */
export async function sendHttp(
  request: LogicalRequest,
  ledger: Ledger,
  policy: RetryPolicy = {},
  abandoned: () => boolean = () => false,
): Promise<void> {
  const maxAttempts = policy.maxAttempts ?? 600;
  const delayMs = policy.delayMs ?? 20;
  const key = `load-${process.pid}-${request.queue}-${request.n}`;
  const event = httpEventOf(request, key);
  for (;;) {
    request.attempts += 1;
    const sent = performance.now();
    const { response, body } = await invoke(handler, event);
    request.slowestMs = Math.max(request.slowestMs, performance.now() - sent);
    const status = response.statusCode;
    if (status === 200 || status === 201) {
      request.settlement = 'accepted';
      request.toldId = typeof body.id === 'string' ? body.id : undefined;
      return;
    }
    ledger.note('http', `${status} ${String(body.code)}`);
    if (status !== 503) {
      request.settlement = 'refused';
      return;
    }
    request.retryable += 1;
    if (request.attempts >= maxAttempts) {
      request.settlement = 'gave-up';
      return;
    }
    if (abandoned()) return;
    await sleep(delayMs);
  }
}
