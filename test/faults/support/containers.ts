/**
 * Function containers as Lambda runs them for the lifecycle tests: the built HTTP and SQS
 * bundles, each in a process of its own (cli/runtime/function-process.ts) that keeps its
 * connection across invocations, frozen with SIGSTOP between invocations as Lambda freezes an
 * idle execution environment, and thawed with SIGCONT.
 */
import type { SQSBatchResponse } from 'aws-lambda';
import { afterAll } from 'vitest';
import { Children } from '../../../cli/runtime/children.js';
import { type FunctionProcess, startFunction } from '../../../cli/runtime/function-process.js';
import { fixture, type HttpEventJson, withBody, withHeader } from '../../fixtures/http/events.js';
import { sqsEvent, sqsRecord } from '../../fixtures/sqs/records.js';
import { freshBundle } from '../../support/bundles.js';
import type { ServerHandle } from '../../support/types.js';

const SOURCES = ['src', 'functions/http', 'functions/sqs', 'functions/shared'];

export interface HttpAnswer {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A container and what it wrote, line by line (its JSON log). */
export interface Container {
  readonly process: FunctionProcess;
  readonly lines: string[];
  freeze(): void;
  thaw(): void;
}

const children = new Children();
afterAll(async () => {
  await children.stopAll();
});

/** Starts a container of `name` (`http`, `sqs`) with exactly `env` (PATH added). */
export async function startContainer(
  name: 'http' | 'sqs',
  env: Readonly<Record<string, string>>,
): Promise<Container> {
  const bundle = await freshBundle(`functions/${name}`, SOURCES);
  const lines: string[] = [];
  const process_ = await startFunction(children, {
    name,
    bundle,
    env: { PATH: process.env.PATH, ...env },
    log: (line) => lines.push(line),
  });
  let frozen = false;
  return {
    process: process_,
    lines,
    freeze() {
      process.kill(process_.pid, 'SIGSTOP');
      frozen = true;
    },
    thaw() {
      if (frozen) process.kill(process_.pid, 'SIGCONT');
      frozen = false;
    },
  };
}

/** A POST of `body` to `queue`, keyed when `key` is given. */
export function postEvent(queue: string, body: string, key?: string): HttpEventJson {
  const event = withBody(fixture('v2-post', { queue }), body);
  return key === undefined ? event : withHeader(event, 'idempotency-key', key);
}

/** A PUT of `body` to `queue`'s job `id`. */
export function putEvent(queue: string, id: string, body: string): HttpEventJson {
  return withBody(fixture('v2-put', { queue, id }), body);
}

export async function invokeHttp(
  container: Container,
  event: HttpEventJson,
  timeoutMs?: number,
): Promise<HttpAnswer> {
  return (await container.process.invoke(
    event,
    timeoutMs === undefined ? {} : { timeoutMs },
  )) as HttpAnswer;
}

/** One SQS batch of `bodies` for the container's default queue; the ids of the records to retry. */
export async function invokeSqs(
  container: Container,
  bodies: readonly string[],
): Promise<string[]> {
  const event = sqsEvent(bodies.map((body) => sqsRecord({ body })));
  const answer = (await container.process.invoke(event)) as SQSBatchResponse;
  return answer.batchItemFailures.map((failure) => failure.itemIdentifier);
}

/** The containers' connections to `node`: its normal clients but the harness's own, which asks. */
export async function containerConnections(node: ServerHandle): Promise<number> {
  const client = await node.client();
  try {
    const list = String(await client.call('CLIENT', 'LIST', 'TYPE', 'normal'));
    return list.split('\n').filter((line) => line.startsWith('id=')).length - 1;
  } finally {
    client.disconnect();
  }
}
