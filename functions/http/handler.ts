/**
 * The Lambda entry for API Gateway (HTTP API, REST API) and Function URLs: serves the event
 * (serve.ts), answers 503 at its deadline if it is still serving then, and logs the request.
 */
import type { Context } from 'aws-lambda';
import { containerAdmission } from '../shared/connection.js';
import { answerBy, deadlineOf } from '../shared/deadline.js';
import { report } from './report.js';
import type { HttpResponse } from './responses.js';
import { failed, type HttpServices, newTrace, outOfTime, serve } from './serve.js';

/** Leaves time to answer 503 before Lambda kills the invocation (API Gateway would say 502/504). */
const ANSWER_BEFORE_TIMEOUT_MS = 250;

const services: HttpServices = { admission: containerAdmission };

export async function handler(event: unknown, context: Context): Promise<HttpResponse> {
  const started = performance.now();
  const requestId = context.awsRequestId;
  const deadlineMs = deadlineOf(context, ANSWER_BEFORE_TIMEOUT_MS);
  // Nothing is sent from the deadline on, so the answer at the deadline knows all that was sent.
  const trace = newTrace(deadlineMs);
  const served = await answerBy(
    deadlineMs,
    // serve answers every failure it expects; a defect that escapes it is still answered (500)
    // and logged, rather than left to API Gateway's bare 502.
    serve(event, requestId, services, trace).catch((error: unknown) =>
      failed(trace, error, requestId),
    ),
    () => outOfTime(trace, requestId),
  );
  report(served, requestId, performance.now() - started);
  return served.response;
}
