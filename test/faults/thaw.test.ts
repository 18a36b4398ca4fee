// Warm containers through Lambda's freeze: the built HTTP and SQS bundles, each in a process of
// its own, frozen with SIGSTOP while the server drops their connection (CLIENT KILL, its idle
// `timeout`, a restart). The first invocation after the thaw succeeds, on the first try: the
// HTTP face answers 201, the SQS face retries no record, and the job is in Valkey once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobRowsOn } from '../support/emq.js';
import { installFenceEverywhere } from '../support/fence-ready.js';
import { randomQueue, type ServerHandle, startStandalone } from '../support/servers.js';
import { waitFor } from '../support/wait.js';
import {
  type Container,
  containerConnections,
  invokeHttp,
  invokeSqs,
  postEvent,
  startContainer,
} from './support/containers.js';

let server: ServerHandle;
let http: Container;
let sqs: Container;
const httpQueue = randomQueue('thaw-http');
const sqsQueue = randomQueue('thaw-sqs');

beforeAll(async () => {
  // Persistence, so that the restart keeps the fence and the jobs.
  server = await startStandalone({ module: true, extraArgs: ['--appendonly', 'yes'] });
  await installFenceEverywhere(server);
  const env = { EMQ_URL: server.url, EMQ_CONNECT_TIMEOUT_MS: '2000' };
  [http, sqs] = await Promise.all([
    startContainer('http', env),
    startContainer('sqs', { ...env, EMQ_DEFAULT_QUEUE: sqsQueue }),
  ]);
}, 180_000);

afterAll(async () => {
  http?.thaw();
  sqs?.thaw();
  await server?.stop();
});

/** Sends the server a command as an operator would. */
async function admin(...args: string[]): Promise<void> {
  const client = await server.client();
  try {
    await client.call(args[0] as string, ...args.slice(1));
  } finally {
    client.disconnect();
  }
}

const FAULTS: Readonly<Record<string, () => Promise<void>>> = {
  'CLIENT KILL': () => admin('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes'),
  'the idle timeout': async () => {
    await admin('CONFIG', 'SET', 'timeout', '1');
    try {
      // The server closes a connection idle for more than a second on its own clock.
      await waitFor('the server to close the idle containers', 20_000, async () => {
        const left = await containerConnections(server);
        return left === 0 ? undefined : `${left} container connection(s) still open`;
      });
    } finally {
      await admin('CONFIG', 'SET', 'timeout', '0');
    }
  },
  'a restart': async () => {
    await server.kill('SIGTERM');
    await server.restart();
  },
};

describe.each(Object.keys(FAULTS))('a container frozen through %s', (fault) => {
  it('serves its first invocation after the thaw (HTTP: 201, SQS: no record retried), each job once', async () => {
    // Warm: each container has opened its connection.
    expect((await invokeHttp(http, postEvent(httpQueue, 'warm'))).statusCode).toBe(201);
    expect(await invokeSqs(sqs, ['warm'])).toEqual([]);
    const before = {
      http: await jobRowsOn([server], httpQueue),
      sqs: await jobRowsOn([server], sqsQueue),
    };
    http.freeze();
    sqs.freeze();
    try {
      await (FAULTS[fault] as () => Promise<void>)();
    } finally {
      http.thaw();
      sqs.thaw();
    }
    const answer = await invokeHttp(http, postEvent(httpQueue, `after ${fault}`));
    expect(answer.statusCode, `${answer.body}\n${http.lines.join('\n')}`).toBe(201);
    expect(await invokeSqs(sqs, [`after ${fault}`])).toEqual([]);
    expect(await jobRowsOn([server], httpQueue)).toBe(before.http + 1);
    expect(await jobRowsOn([server], sqsQueue)).toBe(before.sqs + 1);
  }, 60_000);
});
