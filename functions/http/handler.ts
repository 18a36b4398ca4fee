/**
 * The Lambda entry for API Gateway (HTTP API, REST API) and Function URLs. middy only adds
 * the early-timeout answer; the work is in serve.ts. No error-handler middleware: the stock
 * one turns an unexposed 5xx into a bare 500, and a 503 must keep its Retry-After.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { containerAdmission } from '../shared/connection.js';
import { report } from './report.js';
import type { HttpResponse } from './responses.js';
import { failed, type HttpServices, newTrace, outOfTime, serve, type Trace } from './serve.js';

/** Leaves time to answer 503 before Lambda kills the invocation (API Gateway would say 502/504). */
const ANSWER_BEFORE_TIMEOUT_MS = 250;

const services: HttpServices = { admission: containerAdmission };

/** Requests not yet reported, by their context: whichever path answers first reports. */
const inFlight = new WeakMap<Context, { readonly started: number; readonly trace: Trace }>();

/** What middy's early timeout throws: the answer is then built from what was sent by then. */
class OutOfTime extends Error {}

async function answer(event: unknown, context: Context): Promise<HttpResponse> {
  // Nothing is sent once middy's early answer is due, so that answer knows all that was sent.
  const trace = newTrace(
    Date.now() + context.getRemainingTimeInMillis() - ANSWER_BEFORE_TIMEOUT_MS,
  );
  inFlight.set(context, { started: performance.now(), trace });
  const served = await serve(event, context.awsRequestId, services, trace);
  const request = inFlight.get(context);
  if (request !== undefined) {
    inFlight.delete(context);
    report(served, context.awsRequestId, performance.now() - request.started);
  }
  return served.response;
}

export const handler = middy(answer, {
  timeoutEarlyInMillis: ANSWER_BEFORE_TIMEOUT_MS,
  timeoutEarlyResponse: () => {
    throw new OutOfTime();
  },
}).onError(({ error, context }) => {
  const request = inFlight.get(context);
  inFlight.delete(context);
  const trace = request?.trace ?? newTrace();
  const served =
    error instanceof OutOfTime
      ? outOfTime(trace, context.awsRequestId)
      : failed(trace, error, context.awsRequestId);
  report(
    served,
    context.awsRequestId,
    request === undefined ? 0 : performance.now() - request.started,
  );
  return served.response;
});
