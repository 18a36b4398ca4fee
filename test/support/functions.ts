/**
 * The built functions as Lambda runs them, for tests of their callers: each in a process of
 * its own importing its bundle (cli/runtime/function-process.ts), the HTTP one behind the
 * local stack's API Gateway front, the SQS one fed by the local SQS loop, both pointed at a
 * harness server, or the SQS one invoked directly with any event. Their log lines are kept, to
 * show when a test fails.
 */

import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse } from 'aws-lambda';
import { Children } from '../../cli/runtime/children.js';
import { type FunctionProcess, startFunction } from '../../cli/runtime/function-process.js';
import { serveHttp } from '../../scripts/local/http-server.js';
import { LOCAL_SQS, type LocalSqs, startLocalSqs } from '../../scripts/local/sqs-loop.js';
import { synthesizedSettings } from '../../scripts/local/synthesis.js';
import { freshBundle, run } from './bundles.js';
import { freePort } from './ports.js';
import type { ClusterHandle, ServerHandle } from './types.js';
import { waitFor } from './wait.js';

/** A Function URL's front: every request, whatever its path and method, goes to the function. */
const FUNCTION_URL = [{ method: 'ANY', path: '$default' }] as const;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The event source mapping of the default stack: batches of 10, ReportBatchItemFailures. */
export const DEFAULT_EVENT_SOURCE = {
  batchSize: 10,
  batchingWindowSeconds: 0,
  reportBatchItemFailures: true,
} as const;

/** Where Valkey is, as a function's environment says it: a server's URL, or a cluster's seeds. */
export function valkeyEnvironment(target: ServerHandle | ClusterHandle): Record<string, string> {
  return target.kind === 'cluster'
    ? { EMQ_URL: target.seeds.join(','), EMQ_CLUSTER: 'true' }
    : { EMQ_URL: target.url };
}

/** What every function is given: where Valkey is, and a PATH. */
function baseEnv(target: ServerHandle | ClusterHandle, extra: Readonly<Record<string, string>>) {
  return { PATH: process.env.PATH, ...valkeyEnvironment(target), ...extra };
}

export interface RunningFace {
  /** The HTTP front's URL (with its stage, if it has a named one), or the SQS source queue's. */
  readonly url: string;
  /** Every line the function wrote. */
  readonly log: readonly string[];
  stop(): Promise<void>;
}

/** The bundles a face runs. Default: this repository's dist/functions, rebuilt when stale. */
export interface FaceOptions {
  /** More of the function's environment. Default none. */
  readonly env?: Readonly<Record<string, string>>;
  /** The folder holding `http/index.mjs` and `sqs/index.mjs` (an installed package's). */
  readonly bundles?: string;
}

/**
 * What the HTTP function is behind: the stack's HTTP API (the routes of the synthesized
 * template, matched as API Gateway matches them, on its `$default` stage or a named one), or
 * a Function URL (every path and method reaches the function). Default: the API, `$default`.
 */
export type HttpFront =
  | { readonly kind: 'api'; readonly stage?: string }
  | { readonly kind: 'url' };

export interface HttpFaceOptions extends FaceOptions {
  readonly front?: HttpFront;
}

async function bundleOf(name: 'http' | 'sqs', options: FaceOptions): Promise<string> {
  if (options.bundles !== undefined) return join(options.bundles, name, 'index.mjs');
  return freshBundle(`functions/${name}`, ['src', `functions/${name}`, 'functions/shared']);
}

export interface RunningHttpFace extends RunningFace {
  /** Invokes the function directly with an event of any form, as Lambda would. */
  invoke(event: unknown): Promise<unknown>;
}

/** The HTTP function from its bundle, behind its front on a free port. */
export async function startHttpFace(
  server: ServerHandle | ClusterHandle,
  options: HttpFaceOptions = {},
): Promise<RunningHttpFace> {
  const front = options.front ?? { kind: 'api' };
  const stage = front.kind === 'api' ? (front.stage ?? '$default') : '$default';
  const routes = front.kind === 'api' ? (await synthesizedSettings(ROOT)).routes : FUNCTION_URL;
  const bundle = await bundleOf('http', options);
  const children = new Children();
  const log: string[] = [];
  const http = await startFunction(children, {
    name: 'http',
    bundle,
    env: baseEnv(server, options.env ?? {}),
    log: (line) => log.push(line),
  });
  const served = await serveHttp(
    (event, invocation) => http.invoke(event, invocation),
    await freePort(),
    routes,
    {},
    stage,
  );
  return {
    url: served.url,
    log,
    invoke: (event) => http.invoke(event),
    stop: async () => {
      await served.close();
      await http.stop();
      await children.stopAll();
    },
  };
}

export interface RunningSqsFace extends RunningFace {
  /** The emulator's endpoint, for a producer's SQSClient. */
  readonly endpoint: string;
  /** The function's DLQ. */
  readonly dlqUrl: string;
  /**
   * Waits until the source queue holds nothing, visible or in flight (every message was
   * handled: admitted, or sent to the DLQ), then resolves with the DLQ's message count.
   */
  settled(): Promise<number>;
}

/** The SQS function from its bundle, fed by the local loop from a fresh emulator's source queue. */
export async function startSqsFace(
  server: ServerHandle | ClusterHandle,
  options: FaceOptions = {},
): Promise<RunningSqsFace> {
  const bundle = await bundleOf('sqs', options);
  const children = new Children();
  const log: string[] = [];
  let sqsFunction: FunctionProcess | undefined;
  const sqs: LocalSqs = await startLocalSqs(
    0,
    async (event) => {
      if (sqsFunction === undefined) throw new Error('the SQS function is not started yet');
      return (await sqsFunction.invoke(event, { timeoutMs: 30_000 })) as SQSBatchResponse;
    },
    (message) => log.push(message),
    DEFAULT_EVENT_SOURCE,
    1,
  );
  sqsFunction = await startFunction(children, {
    name: 'sqs',
    bundle,
    env: baseEnv(server, {
      ...options.env,
      EMQ_DLQ_URL: sqs.dlqUrl,
      AWS_ENDPOINT_URL_SQS: sqs.endpoint,
      AWS_REGION: LOCAL_SQS.region,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    }),
    log: (line) => log.push(line),
  });
  const started = sqsFunction;
  const reader = new SQSClient({
    endpoint: sqs.endpoint,
    region: LOCAL_SQS.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const held = async (queueUrl: string): Promise<number> => {
    const { Attributes } = await reader.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }),
    );
    return (
      Number(Attributes?.ApproximateNumberOfMessages) +
      Number(Attributes?.ApproximateNumberOfMessagesNotVisible)
    );
  };
  return {
    url: sqs.queueUrl,
    endpoint: sqs.endpoint,
    dlqUrl: sqs.dlqUrl,
    log,
    settled: async () => {
      await waitFor('the source queue to be drained', 30_000, async () => {
        const left = await held(sqs.queueUrl);
        return left === 0
          ? undefined
          : `${left} messages left; the function said: ${log.slice(-3).join(' | ')}`;
      });
      return held(sqs.dlqUrl);
    },
    stop: async () => {
      reader.destroy();
      await sqs.close();
      await started.stop();
      await children.stopAll();
    },
  };
}

// The one-shot runner's child: imports the bundle by URL, handles the event with a Lambda-shaped
// context, and prints the answer, or what the handler threw, on a RESULT line (the handler's
// log lines go to stdout too).
const SQS_CHILD = `
const [bundle, event] = process.argv.slice(1);
const { handler } = await import(bundle);
const context = {
  functionName: 'emq-sqs', awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
  getRemainingTimeInMillis: () => 30000,
};
let result;
try {
  result = { response: await handler(JSON.parse(event), context) };
} catch (error) {
  result = { thrown: { name: error?.name, code: error?.code, message: error?.message } };
}
process.stdout.write('RESULT ' + JSON.stringify(result) + '\\n');
process.exit(0);
`;

export interface SqsInvocation {
  /** The handler's answer; undefined when it threw. */
  readonly response: SQSBatchResponse | undefined;
  /** What the handler threw (its name, code and message); undefined when it answered. */
  readonly thrown: { name?: string; code?: string; message?: string } | undefined;
  /** Every line the function wrote, parsed. */
  readonly logs: Record<string, unknown>[];
}

/**
 * The built SQS bundle handling one event, as a direct invoke: in a process of its own, with
 * this environment and a PATH. The event crosses as JSON (a lone surrogate survives it).
 */
export async function invokeSqsBundle(
  event: unknown,
  env: Readonly<Record<string, string>>,
): Promise<SqsInvocation> {
  const bundle = await bundleOf('sqs', {});
  const { stdout } = await run(
    process.execPath,
    ['--input-type=module', '-e', SQS_CHILD, pathToFileURL(bundle).href, JSON.stringify(event)],
    { env: { PATH: process.env.PATH, ...env }, timeout: 20_000, maxBuffer: 64 * 1024 * 1024 },
  );
  const lines = stdout.split('\n').filter((line) => line !== '');
  const result = lines.find((line) => line.startsWith('RESULT '));
  if (result === undefined) throw new Error(`the SQS bundle gave no result: ${stdout.slice(-500)}`);
  const { response, thrown } = JSON.parse(result.slice('RESULT '.length)) as {
    response?: SQSBatchResponse;
    thrown?: SqsInvocation['thrown'];
  };
  return {
    response,
    thrown,
    logs: lines
      .filter((line) => !line.startsWith('RESULT '))
      .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
