// The retryable paths of the HTTP face on real servers: each answers 503 with Retry-After and
// a problem body, and a retry after the fault clears succeeds without a second job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/http/handler.js';
import { resetContainer } from '../../functions/shared/connection.js';
import { type LogSink, setLogSink } from '../../functions/shared/log.js';
import { install } from '../../src/connection/fence.js';
import { mintId } from '../../src/keyspace/ids.js';
import {
  FIXTURE_IDEMPOTENCY_KEY,
  fixture,
  type HttpEventJson,
  withHeader,
} from '../fixtures/http/events.js';
import {
  clearEmqEnv,
  configureContainer,
  type InvokeOptions,
  invoke as invokeHandler,
} from '../fixtures/http/invoke.js';
import { connectTo, jobsOf, recordOf } from '../support/emq.js';
import {
  type ClusterHandle,
  digestOf,
  randomQueue,
  type ServerHandle,
  startCluster,
  startStandalone,
} from '../support/servers.js';

const logLines: string[] = [];
let previousSink: LogSink;

beforeAll(() => {
  previousSink = setLogSink((line) => logLines.push(line));
});

afterAll(async () => {
  await resetContainer();
  setLogSink(previousSink);
  clearEmqEnv();
});

const invoke = (event: HttpEventJson, options?: InvokeOptions) =>
  invokeHandler(handler, event, options);

function linesOf(requestId: string): Record<string, unknown>[] {
  return logLines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.requestId === requestId);
}

async function withFence(target: ServerHandle | ClusterHandle, wire = '1'): Promise<void> {
  await install(await connectTo(target, { checkFence: false, wire }));
}

describe('a fence mismatch', () => {
  let server: ServerHandle;
  let otherWire: ServerHandle;

  beforeAll(async () => {
    [server, otherWire] = await Promise.all([
      startStandalone({ module: true }),
      startStandalone({ module: { wire: '2' } }),
    ]);
    await Promise.all([withFence(server), withFence(otherWire, '2')]);
  });

  afterAll(async () => {
    await resetContainer();
    await Promise.all([server?.stop(), otherWire?.stop()]);
  });

  it('met by the native write answers 503 EMQWIRE with Retry-After and writes nothing', async () => {
    await configureContainer(server, { EMQ_EXECUTOR: 'native' });
    const queue = randomQueue('http-fence');
    expect((await invoke(fixture('v2-post', { queue }))).response.statusCode).toBe(201);
    const admin = await server.client();
    await admin.set('{emq}:version', '2');
    try {
      const before = await digestOf(server);
      const { response, body, requestId } = await invoke(fixture('v2-post', { queue }));
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.headers['content-type']).toBe('application/problem+json');
      expect(body).toMatchObject({ status: 503, code: 'EMQWIRE', retryable: true, requestId });
      expect(await digestOf(server)).toBe(before);
    } finally {
      await admin.set('{emq}:version', '1');
    }
    expect((await invoke(fixture('v2-post', { queue }))).response.statusCode).toBe(201);
  });

  it('met when connecting answers 503 EMQWIRE, and the next invocation connects once it matches', async () => {
    await configureContainer(server, { EMQ_EXECUTOR: 'function' });
    const admin = await server.client();
    await admin.set('{emq}:version', '7');
    const queue = randomQueue('http-fence-open');
    try {
      const { response, body } = await invoke(fixture('v1-post', { queue }));
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(body).toMatchObject({ code: 'EMQWIRE', retryable: true });
      expect(JSON.stringify(body)).not.toContain(String(server.port));
    } finally {
      await admin.set('{emq}:version', '1');
    }
    const retried = await invoke(fixture('v1-post', { queue }));
    expect(retried.response.statusCode).toBe(201);
    expect((await jobsOf(await connectTo(server), queue)).rows).toEqual([retried.body.id]);
  });

  it('with a module built for another wire identity answers 503 EMQWIRE', async () => {
    await configureContainer(otherWire);
    const before = await digestOf(otherWire);
    const { response, body } = await invoke(fixture('url-post', { queue: randomQueue('wire') }));
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(body).toMatchObject({ code: 'EMQWIRE', retryable: true });
    expect(await digestOf(otherWire)).toBe(before);
  });
});

describe('a server that is down', () => {
  let server: ServerHandle;

  beforeAll(async () => {
    server = await startStandalone({ module: true });
    await withFence(server);
  });

  afterAll(async () => {
    await resetContainer();
    await server?.stop();
  });

  it('answers 503 EMQ_UNAVAILABLE under an open connection, without naming the server', async () => {
    await configureContainer(server, { EMQ_CONNECT_TIMEOUT_MS: '500' });
    const queue = randomQueue('http-down');
    expect((await invoke(fixture('v2-post', { queue }))).response.statusCode).toBe(201);
    await server.kill('SIGKILL');
    try {
      const { response, body, requestId } = await invoke(fixture('v2-post', { queue }));
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe('1');
      expect(body).toMatchObject({ code: 'EMQ_UNAVAILABLE', retryable: true, requestId });
      expect(response.body).not.toContain(String(server.port));
      expect(JSON.stringify(linesOf(requestId))).not.toContain(String(server.port));
    } finally {
      await server.restart();
      await withFence(server);
    }
  });

  it('answers 503 on a cold start, and the next invocation connects once it is back', async () => {
    await server.kill('SIGKILL');
    await configureContainer(server, { EMQ_CONNECT_TIMEOUT_MS: '500' });
    const queue = randomQueue('http-cold');
    // A fresh id: caller ids older than EMQ_CALLER_ID_MAX_AGE_MS (a day) are refused.
    const id = mintId();
    try {
      const { response, body } = await invoke(fixture('url-put', { queue, id }));
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe('1');
      expect(body).toMatchObject({ code: 'EMQ_UNAVAILABLE', retryable: true });
    } finally {
      await server.restart();
      await withFence(server);
    }
    const retried = await invoke(fixture('url-put', { queue, id }));
    expect(retried.response.statusCode).toBe(201);
    expect(await jobsOf(await connectTo(server), queue)).toEqual({
      rows: [retried.body.id],
      pending: [retried.body.id],
    });
  });

  it('answers 503 before the Lambda deadline when the server hangs, logging the request once', async () => {
    await configureContainer(server, {
      EMQ_COMMAND_TIMEOUT_MS: '10000',
      EMQ_CONNECT_TIMEOUT_MS: '10000',
    });
    const queue = randomQueue('http-hang');
    const event = withHeader(fixture('v2-post', { queue }), 'idempotency-key', 'hang-1');
    await invoke(fixture('v2-get', { queue })); // opens the connection
    await server.kill('SIGSTOP');
    let requestId: string;
    try {
      const answer = await invoke(event, { remainingMs: 600 });
      requestId = answer.requestId;
      expect(answer.response.statusCode).toBe(503);
      expect(answer.response.headers['retry-after']).toBe('1');
      expect(answer.response.headers['x-request-id']).toBe(requestId);
      expect(answer.body).toMatchObject({ code: 'EMQ_UNAVAILABLE', retryable: true, requestId });
    } finally {
      await server.kill('SIGCONT');
    }
    // The abandoned attempt finishes once the server runs again; the retry finds its job.
    const reader = await connectTo(server);
    await expect.poll(async () => (await jobsOf(reader, queue)).rows.length).toBe(1);
    const retried = await invoke(event);
    expect(retried.response.statusCode).toBe(200);
    expect(await jobsOf(reader, queue)).toEqual({
      rows: [retried.body.id],
      pending: [retried.body.id],
    });
    expect(linesOf(requestId)).toHaveLength(1);
    expect(linesOf(requestId)[0]).toMatchObject({
      route: 'POST /queues/{queue}/jobs',
      queue,
      status: 503,
      outcome: 'EMQ_UNAVAILABLE',
    });
  });
});

describe.each([
  ['a standalone server', 'native'],
  ['a standalone server', 'function'],
  ['a 3-primary cluster', 'native'],
] as const)('a write held by CLIENT PAUSE WRITE on %s (%s)', (topology, family) => {
  let target: ServerHandle | ClusterHandle;

  beforeAll(async () => {
    target =
      topology === 'a standalone server'
        ? await startStandalone({ module: true })
        : await startCluster({ module: true });
    await withFence(target);
    await configureContainer(target, { EMQ_EXECUTOR: family, EMQ_COMMAND_TIMEOUT_MS: '300' });
  });

  afterAll(async () => {
    await resetContainer();
    await target?.stop();
  });

  it('answers 503 past the command timeout; the retry with the same key makes exactly one job', async () => {
    const queue = randomQueue('http-paused');
    const event = fixture('v1-post-idempotency-key', { queue });
    await invoke(fixture('v1-get', { queue })); // opens the connection before the pause
    const primaries = target.kind === 'cluster' ? await target.primaries() : [target];
    const admins = await Promise.all(primaries.map((node) => node.client()));
    await Promise.all(admins.map((admin) => admin.call('CLIENT', 'PAUSE', '1500', 'WRITE')));
    try {
      const { response, body } = await invoke(event);
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe('1');
      expect(body).toMatchObject({ code: 'EMQ_UNAVAILABLE', retryable: true });
    } finally {
      // Ends the pause; the write the server held runs now, after the caller gave up on it.
      await Promise.all(admins.map((admin) => admin.call('CLIENT', 'UNPAUSE')));
    }
    const reader = await connectTo(target);
    const record = () => recordOf(reader, queue, 'http', FIXTURE_IDEMPOTENCY_KEY);
    await expect.poll(async () => (await record()) !== null).toBe(true);
    // The held call wrote row, pending entry and record at once: the retry is its duplicate.
    const retried = await invoke(event);
    expect(retried.response.statusCode).toBe(200);
    expect((await record())?.id).toBe(retried.body.id);
    expect(await jobsOf(reader, queue)).toEqual({
      rows: [retried.body.id],
      pending: [retried.body.id],
    });
    const again = await invoke(event);
    expect(again.response.statusCode).toBe(200);
    expect(again.body.id).toBe(retried.body.id);
  });
});
