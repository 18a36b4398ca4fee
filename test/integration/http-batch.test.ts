// README.md "The HTTP face" on real servers: POST /queues/{queue}/jobs/batch through the Lambda
// handler, on a standalone server with the module (both families) and on a cluster. Rows are read
// back; a refused batch leaves DEBUG DIGEST unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/http/handler.js';
import { resetContainer } from '../../functions/shared/connection.js';
import { type LogSink, setLogSink } from '../../functions/shared/log.js';
import { install } from '../../src/connection/fence.js';
import { type Connection, readJob } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import {
  FORMATS,
  fixture,
  type HttpEventJson,
  withBody,
  withHeader,
  withPath,
} from '../fixtures/http/events.js';
import {
  clearEmqEnv,
  configureContainer,
  invoke as invokeHandler,
} from '../fixtures/http/invoke.js';
import { connectTo, jobsOf } from '../support/emq.js';
import {
  type ClusterHandle,
  digestOf,
  freePort,
  randomQueue,
  type ServerHandle,
  startCluster,
  startStandalone,
} from '../support/servers.js';

type Target = ServerHandle | ClusterHandle;

const TOPOLOGIES = [
  {
    name: 'a standalone server with the module, native',
    start: () => startStandalone({ module: true }),
    family: 'auto',
  },
  {
    name: 'a standalone server with the module, function family',
    start: () => startStandalone({ module: true }),
    family: 'function',
  },
  {
    name: 'a 3-primary cluster with the module',
    start: () => startCluster({ module: true }),
    family: 'auto',
  },
] as const;

const MAX_PAYLOAD_BYTES = 64;
let previousSink: LogSink;
const logLines: string[] = [];

beforeAll(() => {
  previousSink = setLogSink((line) => logLines.push(line));
});

afterAll(async () => {
  await resetContainer();
  setLogSink(previousSink);
  clearEmqEnv();
});

function batchEvent(format: (typeof FORMATS)[number], queue: string, body: unknown): HttpEventJson {
  const event = withPath(fixture(`${format}-post`), `/queues/${queue}/jobs/batch`);
  return withBody(event, typeof body === 'string' ? body : JSON.stringify(body));
}

const invoke = (event: HttpEventJson) => invokeHandler(handler, event);

describe.each(TOPOLOGIES)('on $name', ({ start, family }) => {
  let target: Target;
  let reader: Connection;
  const digest = async (): Promise<unknown> =>
    target.kind === 'server' ? await digestOf(target) : [...(await digestOf(target))].sort();

  beforeAll(async () => {
    target = await start();
    reader = await connectTo(target, { checkFence: false });
    await install(reader);
    await configureContainer(target, {
      EMQ_EXECUTOR: family,
      EMQ_MAX_PAYLOAD_BYTES: String(MAX_PAYLOAD_BYTES),
    });
  });

  afterAll(async () => {
    await resetContainer();
    await reader?.close();
    await target?.stop();
  });

  describe.each(FORMATS)('%s events', (format) => {
    it('admits 100 mixed jobs and answers one result per item, in input order', async () => {
      const queue = randomQueue(`batch-${format}`);
      const id = mintId();
      const jobs = Array.from({ length: 100 }, (_, index) => {
        if (index === 0) return { payload: 'with an id', id };
        if (index === 1) return { payload: 'AP8Q', encoding: 'base64' };
        if (index % 3 === 0) return { payload: `keyed ${index}`, idempotencyKey: `order-${index}` };
        return { payload: `job ${index}` };
      });
      const { response, body, requestId } = await invoke(batchEvent(format, queue, { jobs }));
      expect(response.statusCode).toBe(200);
      expect(response.headers).toEqual({
        'content-type': 'application/json',
        'x-request-id': requestId,
      });
      const results = body.results as { id: string; status: string }[];
      expect(body.queue).toBe(queue);
      expect(results).toHaveLength(100);
      expect(results[0]).toEqual({ id, status: 'enqueued' });
      expect(results.every((result) => result.status === 'enqueued')).toBe(true);
      expect(new Set(results.map((result) => result.id)).size).toBe(100);
      for (const [index, result] of results.entries()) {
        const row = await readJob(reader, queue, result.id);
        const expected =
          index === 1 ? Buffer.from([0x00, 0xff, 0x10]) : Buffer.from(jobs[index]?.payload ?? '');
        expect(row?.payload.equals(expected)).toBe(true);
      }
      const { rows, pending } = await jobsOf(reader, queue);
      expect(rows).toHaveLength(100);
      expect(pending).toHaveLength(100);
    });

    it('answers duplicates for replayed ids and keys, and a per-item problem for a conflict', async () => {
      const queue = randomQueue(`batch-replay-${format}`);
      const id = mintId();
      const jobs = [
        { payload: 'a', id },
        { payload: 'b', idempotencyKey: 'k-1' },
      ];
      const first = await invoke(batchEvent(format, queue, { jobs }));
      const firstResults = first.body.results as { id: string }[];
      // A later request: within one body, another payload for a key is a malformed body.
      const replay = await invoke(
        batchEvent(format, queue, {
          jobs: [...jobs, { payload: 'other', id: mintId() }],
        }),
      );
      expect(replay.response.statusCode).toBe(200);
      const [same, keyed] = replay.body.results as Record<string, unknown>[];
      expect(same).toEqual({ id, status: 'duplicate' });
      expect(keyed).toEqual({ id: firstResults[1]?.id, status: 'duplicate' });
      const others = await invoke(
        batchEvent(format, queue, {
          jobs: [
            { payload: 'other', id },
            { payload: 'c', idempotencyKey: 'k-1' },
          ],
        }),
      );
      expect(others.response.statusCode).toBe(200);
      const [conflict, mismatch] = others.body.results as Record<string, unknown>[];
      expect(conflict?.error).toMatchObject({
        status: 409,
        code: 'EMQ_CONFLICT',
        retryable: false,
      });
      expect(mismatch?.error).toMatchObject({ status: 422, code: 'EMQ_IDEMPOTENCY_MISMATCH' });
      expect((await jobsOf(reader, queue)).rows).toHaveLength(3);
    });

    it.each([
      ['not JSON', '{"jobs": ['],
      [
        'an item with an invalid id',
        { jobs: [{ payload: 'ok' }, { payload: 'x', id: 'order-1001' }] },
      ],
      [
        'an item over the payload cap',
        { jobs: [{ payload: 'ok' }, { payload: 'x'.repeat(MAX_PAYLOAD_BYTES + 1) }] },
      ],
      ['1,001 jobs', { jobs: Array.from({ length: 1001 }, () => ({ payload: 'x' })) }],
      ['invalid base64', { jobs: [{ payload: 'ok' }, { payload: '!!', encoding: 'base64' }] }],
    ])('refuses a body with %s whole, writing nothing', async (_, body) => {
      const queue = randomQueue(`batch-bad-${format}`);
      const before = await digest();
      const { response, body: problem } = await invoke(batchEvent(format, queue, body));
      expect([400, 413]).toContain(response.statusCode);
      expect(response.headers['content-type']).toBe('application/problem+json');
      expect(problem).toMatchObject({ retryable: false });
      expect(await digest()).toEqual(before);
    });

    it('refuses items sharing a key or an id with different payloads before any write', async () => {
      const queue = randomQueue(`batch-shared-${format}`);
      const id = mintId();
      const before = await digest();
      for (const jobs of [
        [
          { payload: 'first', idempotencyKey: 'order-1' },
          { payload: 'other', idempotencyKey: 'order-1' },
        ],
        [
          { payload: 'first', id },
          { payload: 'other', id },
        ],
      ]) {
        const { response, body } = await invoke(batchEvent(format, queue, { jobs }));
        expect(response.statusCode).toBe(400);
        expect(body).toMatchObject({ code: 'EMQ_INVALID_REQUEST', retryable: false });
        expect((body.items as { index: number }[]).map((item) => item.index)).toEqual([0, 1]);
      }
      expect(await digest()).toEqual(before);
    });

    it('answers a later item that repeats a key or an id with the same payload as its duplicate', async () => {
      const queue = randomQueue(`batch-repeat-${format}`);
      const id = mintId();
      const { response, body } = await invoke(
        batchEvent(format, queue, {
          jobs: [
            { payload: 'same', idempotencyKey: 'order-1' },
            { payload: 'same', id },
            { payload: 'same', idempotencyKey: 'order-1' },
            { payload: 'same', id },
          ],
        }),
      );
      expect(response.statusCode).toBe(200);
      const results = body.results as { id: string; status: string }[];
      expect(results[0]?.status).toBe('enqueued');
      expect(results.slice(1)).toEqual([
        { id, status: 'enqueued' },
        { id: results[0]?.id, status: 'duplicate' },
        { id, status: 'duplicate' },
      ]);
      expect((await jobsOf(reader, queue)).rows).toHaveLength(2);
    });

    it('refuses an Idempotency-Key on the batch itself, writing nothing', async () => {
      const queue = randomQueue(`batch-key-${format}`);
      const before = await digest();
      const event = withHeader(
        batchEvent(format, queue, { jobs: [{ payload: 'a' }] }),
        'Idempotency-Key',
        'k',
      );
      const { response, body } = await invoke(event);
      expect(response.statusCode).toBe(400);
      expect(String(body.detail)).toMatch(/idempotencyKey/);
      expect(await digest()).toEqual(before);
    });
  });
});

describe('when Valkey cannot be reached', () => {
  afterAll(async () => {
    await resetContainer();
  });

  it('answers 503 with Retry-After, as every item must be retried', async () => {
    process.env.EMQ_URL = `redis://127.0.0.1:${await freePort()}`;
    process.env.EMQ_CONNECT_TIMEOUT_MS = '500';
    await resetContainer();
    const { response, body } = await invoke(
      batchEvent('v2', 'orders', { jobs: [{ payload: 'a' }, { payload: 'b' }] }),
    );
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(body).toMatchObject({ status: 503, code: 'EMQ_UNAVAILABLE', retryable: true });
  });
});
