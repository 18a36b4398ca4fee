/**
 * The two Lambda faces invoked in process, as the runtime calls them: the `handler`
 * with a Lambda context, the container configured from EMQ_* variables. Their log lines go
 * where Lambda's go, to the default sink, stdout, which the bench makes a pipe drained by
 * another process (log-pipe.ts): the writes and their syscalls are measured. Each family runs
 * on its own server (case.ts): native on the module's, function and script on the plain one.
 */
import type { Context, SQSEvent } from 'aws-lambda';
import { handler as httpHandler } from '../../functions/http/handler.js';
import { resetContainer } from '../../functions/shared/connection.js';
import { handler as sqsHandler } from '../../functions/sqs/handler.js';
import v2Post from '../../test/fixtures/http/v2-post.json' with { type: 'json' };
import { sqsRecord } from '../../test/fixtures/sqs/records.js';
import {
  type BenchCase,
  type Family,
  PAYLOAD,
  type ServerName,
  serverOf,
  topLevelOf,
} from '../case.js';

const SQS_QUEUE = 'bench-sqs';
const HTTP_QUEUE = 'bench-http';

let serverUrls: Readonly<Record<ServerName, string>> = { module: '', plain: '', listpack: '' };
let container: string | undefined;
let invocations = 0;

/** Points the container at the bench's servers; call once before any face case. */
export function configureFaces(urls: Readonly<Record<ServerName, string>>): void {
  serverUrls = urls;
  process.env.EMQ_CLUSTER = 'false';
  process.env.EMQ_DEFAULT_QUEUE = SQS_QUEUE;
  delete process.env.EMQ_DLQ_URL;
}

/**
 * One container at a time, as a deployment has one per function: switching the family or
 * the server (the round-trip proxy) reopens it. The family's own server by default.
 */
export async function useContainer(
  family: Family,
  url = serverUrls[serverOf(family)],
  acks = 0,
): Promise<void> {
  if (container === `${family} ${url} ${acks}`) return;
  await resetContainer();
  process.env.EMQ_URL = url;
  process.env.EMQ_EXECUTOR = family;
  process.env.EMQ_ACK_REPLICAS = String(acks);
  container = `${family} ${url} ${acks}`;
}

/** Closes the container's connection. */
export async function closeContainer(): Promise<void> {
  await resetContainer();
  container = undefined;
}

export function lambdaContext(): Context {
  invocations += 1;
  const deadline = Date.now() + 30_000;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'emq-bench',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-2:123456789012:function:emq-bench',
    memoryLimitInMB: '1024',
    awsRequestId: `0f4c2e8a-5b1d-4c3e-9a7f-${invocations.toString(16).padStart(12, '0')}`,
    logGroupName: '/aws/lambda/emq-bench',
    logStreamName: '2025/11/30/[$LATEST]4bd0f2f5a7c64d4a9d6d1e2b3c4d5e6f',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

/** A batch of first deliveries: fresh messageIds, SentTimestamp now, receive count 1. */
export function firstDeliveries(size: number): SQSEvent {
  return { Records: Array.from({ length: size }, () => sqsRecord({ body: PAYLOAD })) };
}

/**
 * `acks`: EMQ_ACK_REPLICAS of the container, named in the case (1 needs a replica attached);
 * left out, the default 0 and the plain name. `server`: another server than the family's own
 * (`listpack`), named in the case.
 */
export function sqsCase(
  family: Family,
  size: number,
  inFlight = 1,
  acks?: number,
  server?: ServerName,
): BenchCase {
  const flight = inFlight > 1 ? `, ${inFlight} in flight` : '';
  const acked = acks === undefined ? '' : `, EMQ_ACK_REPLICAS=${acks}`;
  const listpack = server === 'listpack' ? ', rows as listpacks' : '';
  return {
    id: `sqs.batch${size}.${family}${inFlight > 1 ? `.x${inFlight}` : ''}${acks === undefined ? '' : `.acks${acks}`}${server === undefined ? '' : `.${server}`}`,
    label: `SQS handler, batches of ${size} (${family})${flight}${acked}${listpack}`,
    side: 'ours',
    jobsPerUnit: size,
    inFlight,
    server: server ?? serverOf(family),
    topLevel: topLevelOf(family),
    round: async (units) => {
      await useContainer(family, serverUrls[server ?? serverOf(family)], acks ?? 0);
      await sqsHandler(firstDeliveries(size), lambdaContext());
      const events = Array.from({ length: units }, () => firstDeliveries(size));
      const contexts = Array.from({ length: units }, lambdaContext);
      return async (i) => {
        const response = await sqsHandler(events[i] as SQSEvent, contexts[i] as Context);
        if (response.batchItemFailures.length > 0) throw new Error('SQS batch had failures');
      };
    },
  };
}

function postEvent(): Record<string, unknown> {
  const event = structuredClone(v2Post) as Record<string, unknown>;
  const text = JSON.stringify(event).replaceAll('orders', HTTP_QUEUE);
  const retargeted = JSON.parse(text) as Record<string, unknown> & {
    headers: Record<string, string>;
  };
  retargeted.body = PAYLOAD;
  retargeted.headers['content-length'] = String(PAYLOAD.length);
  return retargeted;
}

export function httpCase(family: Family): BenchCase {
  return {
    id: `http.post.${family}`,
    label: `HTTP handler POST, sequential (${family})`,
    side: 'ours',
    jobsPerUnit: 1,
    server: serverOf(family),
    topLevel: topLevelOf(family),
    round: async (units) => {
      await useContainer(family);
      await httpHandler(postEvent(), lambdaContext());
      const event = postEvent();
      const contexts = Array.from({ length: units }, lambdaContext);
      return async (i) => {
        const response = (await httpHandler(event, contexts[i] as Context)) as {
          statusCode: number;
        };
        if (response.statusCode !== 201) throw new Error(`HTTP answered ${response.statusCode}`);
      };
    },
  };
}

/** A POST /queues/{queue}/jobs/batch event of `size` keyless jobs. */
function batchEvent(size: number): Record<string, unknown> {
  const event = postEvent();
  const body = JSON.stringify({ jobs: Array.from({ length: size }, () => ({ payload: PAYLOAD })) });
  const headers = {
    ...(event.headers as Record<string, string>),
    'content-length': String(body.length),
  };
  const http = (event.requestContext as { http: Record<string, unknown> }).http;
  return {
    ...event,
    rawPath: `/queues/${HTTP_QUEUE}/jobs/batch`,
    routeKey: 'POST /queues/{queue}/jobs/batch',
    requestContext: {
      ...(event.requestContext as Record<string, unknown>),
      http: { ...http, path: `/queues/${HTTP_QUEUE}/jobs/batch` },
    },
    headers,
    body,
  };
}

/**
 * The batch endpoint (README.md, "The HTTP face"): `size` jobs per request, one request at a time.
 */
export function httpBatchCase(family: Family, size: number): BenchCase {
  return {
    id: `http.batch${size}.${family}`,
    label: `HTTP handler POST batch ×${size}, sequential (${family})`,
    side: 'ours',
    jobsPerUnit: size,
    server: serverOf(family),
    topLevel: topLevelOf(family),
    round: async (units) => {
      await useContainer(family);
      const event = batchEvent(size);
      await httpHandler(event, lambdaContext());
      const contexts = Array.from({ length: units }, lambdaContext);
      return async (i) => {
        const response = (await httpHandler(event, contexts[i] as Context)) as {
          statusCode: number;
        };
        if (response.statusCode !== 200) throw new Error(`HTTP answered ${response.statusCode}`);
      };
    },
  };
}
