// The producer client against the real HTTP function (its built bundle in a process of its
// own) on a real Valkey, behind each front it is deployed behind: the stack's HTTP API (the
// synthesized template's routes, matched as API Gateway matches them) at its root with and
// without a trailing `/` and under a named stage, and a Function URL. Replays, a 503 in the
// middle of a call (the fence removed, writes paused), a connection dropped after the request
// was sent, refusals, batches split by size. Each test ends by counting the jobs in Valkey: a
// retry of the client's own never makes a second one.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EchoMqClient,
  EmqClientError,
  MAX_BATCH_BYTES,
  type RetryOptions,
} from '../../client/index.js';
import { type Connection, mintJobId, readJob } from '../../src/index.js';
import { connectTo, jobsOf, startFencedServer } from '../support/emq.js';
import { type HttpFront, type RunningFace, startHttpFace } from '../support/functions.js';
import { randomQueue, type ServerHandle } from '../support/servers.js';

/** Short waits: the function's Retry-After (1 s) is capped, so a test spends little on it. */
const FAST: RetryOptions = { baseDelayMs: 5, maxDelayMs: 50 };
const FENCE = '{emq}:version';

let server: ServerHandle;
let face: RunningFace;
/** The endpoint the client is given: the front's URL, as the case writes it. */
let endpoint: string;
let reader: Connection;

beforeAll(async () => {
  server = await startFencedServer();
  reader = await connectTo(server);
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

/** Each front, and the endpoint as the case gives it (its URL, then `suffix`). */
const FRONTS: readonly (readonly [string, HttpFront, string])[] = [
  ["the HTTP API's root", { kind: 'api' }, ''],
  ["the HTTP API's root with a trailing /", { kind: 'api' }, '/'],
  ['the named stage /prod', { kind: 'api', stage: 'prod' }, ''],
  ['a Function URL', { kind: 'url' }, '/'],
];

/** A client whose every request and answer status is recorded; `onAnswer` runs before the caller sees one. */
function recordingClient(
  options: {
    endpoint?: string;
    retry?: RetryOptions;
    maxPayloadBytes?: number;
    onAnswer?: (status: number) => Promise<void>;
  } = {},
) {
  const statuses: (number | 'no answer')[] = [];
  const sent: { method: string; url: string; key: string | null; bytes: number }[] = [];
  const client = new EchoMqClient({
    endpoint: options.endpoint ?? endpoint,
    credentials: false,
    retry: { ...FAST, ...options.retry },
    ...(options.maxPayloadBytes === undefined ? {} : { maxPayloadBytes: options.maxPayloadBytes }),
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers);
      sent.push({
        method: init?.method ?? 'GET',
        url: String(input),
        key: headers.get('idempotency-key'),
        bytes: init?.body instanceof Uint8Array ? init.body.byteLength : 0,
      });
      try {
        const response = await fetch(input, init);
        statuses.push(response.status);
        await options.onAnswer?.(response.status);
        return response;
      } catch (error) {
        statuses.push('no answer');
        throw error;
      }
    },
  });
  return { client, statuses, sent };
}

async function jobCount(queue: string): Promise<{ rows: string[]; pending: string[] }> {
  return jobsOf(reader, queue);
}

type Recording = ReturnType<typeof recordingClient>;

/**
 * Runs `use` with writes paused (CLIENT PAUSE WRITE): a write is held past the function's
 * command timeout, so it answers 503, and the write lands once the client has seen the 503
 * (the pause ends then, before the client retries). The function's connection is opened first.
 */
async function whilePaused(
  queue: string,
  use: (recording: Recording) => Promise<void>,
): Promise<void> {
  const admin = await server.client();
  const recording = recordingClient({
    onAnswer: async (status) => {
      if (status === 503) await admin.call('CLIENT', 'UNPAUSE');
    },
  });
  await recording.client.get(queue, mintJobId());
  await admin.call('CLIENT', 'PAUSE', '20000', 'WRITE');
  try {
    await use(recording);
  } finally {
    await admin.call('CLIENT', 'UNPAUSE');
  }
}

describe.each(FRONTS)('behind %s', (_, front, suffix) => {
  beforeAll(async () => {
    // A held write answers 503 after 300 ms instead of 2 s.
    face = await startHttpFace(server, { env: { EMQ_COMMAND_TIMEOUT_MS: '300' }, front });
    endpoint = `${face.url}${suffix}`;
  }, 180_000);

  afterAll(async () => {
    await face?.stop();
  });

  describe('enqueue', () => {
    it('answers a keyed replay with the same job, and refuses the key with another body at once', async () => {
      const queue = randomQueue('client-replay');
      const { client, statuses } = recordingClient();
      const first = await client.enqueue(queue, 'order 1', { idempotencyKey: 'order-1' });
      const again = await client.enqueue(queue, 'order 1', { idempotencyKey: 'order-1' });
      expect(first).toEqual({ queue, id: first.id, status: 'enqueued' });
      expect(again).toEqual({ queue, id: first.id, status: 'duplicate' });

      const refused = await client
        .enqueue(queue, 'another body', { idempotencyKey: 'order-1' })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(EmqClientError);
      expect(refused).toMatchObject({
        code: 'EMQ_IDEMPOTENCY_MISMATCH',
        status: 422,
        retryable: false,
        attempts: 1,
      });
      expect((refused as EmqClientError).requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(statuses).toEqual([201, 200, 422]);
      expect(await jobCount(queue)).toEqual({ rows: [first.id], pending: [first.id] });
    });

    it('admits under a caller id with PUT; another payload under it is a conflict, thrown at once', async () => {
      const queue = randomQueue('client-put');
      const id = mintJobId();
      const { client, sent, statuses } = recordingClient();
      expect(await client.enqueue(queue, 'mine', { id })).toEqual({
        queue,
        id,
        status: 'enqueued',
      });
      expect(await client.enqueue(queue, 'mine', { id })).toEqual({
        queue,
        id,
        status: 'duplicate',
      });
      await expect(client.enqueue(queue, 'not mine', { id })).rejects.toMatchObject({
        code: 'EMQ_CONFLICT',
        status: 409,
        retryable: false,
      });
      expect(sent.map((request) => request.method)).toEqual(['PUT', 'PUT', 'PUT']);
      expect(statuses).toEqual([201, 200, 409]);
      expect(await jobCount(queue)).toEqual({ rows: [id], pending: [id] });
    });

    it('refuses a payload over the cap with 413 and a bad queue before any request; the service answers 413 too', async () => {
      const queue = randomQueue('client-413');
      const { client, statuses } = recordingClient();
      await expect(client.enqueue(queue, new Uint8Array(300_000))).rejects.toMatchObject({
        code: 'EMQ_PAYLOAD_TOO_LARGE',
        status: 413,
        retryable: false,
      });
      await expect(client.enqueue('orders:eu', 'x')).rejects.toMatchObject({
        code: 'EMQ_INVALID_QUEUE',
        status: undefined,
      });
      expect(statuses).toEqual([]);
      // A client told of a larger cap than the service's sends it, and the service refuses it.
      const raised = recordingClient({ maxPayloadBytes: 1_048_576 });
      await expect(raised.client.enqueue(queue, new Uint8Array(300_000))).rejects.toMatchObject({
        code: 'EMQ_PAYLOAD_TOO_LARGE',
        status: 413,
        retryable: false,
        attempts: 1,
      });
      expect(raised.statuses).toEqual([413]);
      expect(await jobCount(queue)).toEqual({ rows: [], pending: [] });
    });

    it('reads a job back, bytes as base64, and an unknown job as undefined', async () => {
      const queue = randomQueue('client-get');
      const { client } = recordingClient();
      const bytes = Uint8Array.from([0, 255, 128, 10]);
      const { id } = await client.enqueue(queue, bytes);
      expect(await client.get(queue, id)).toEqual({
        queue,
        id,
        state: 'pending',
        attempts: 0,
        payload: Buffer.from(bytes).toString('base64'),
        encoding: 'base64',
      });
      expect(await client.get(queue, mintJobId())).toBeUndefined();
      const row = await readJob(reader, queue, id);
      expect(row?.payload.equals(Buffer.from(bytes))).toBe(true);
    });
  });

  describe('a 503 in the middle of a call', () => {
    it.each([
      ['a keyless enqueue', undefined],
      ['a keyed enqueue', 'fence-key'],
    ])('with the fence removed: %s retries with its key and makes one job', async (_, key) => {
      const queue = randomQueue('client-fence');
      const admin = await server.client();
      const wire = await admin.get(FENCE);
      await admin.del(FENCE);
      const { client, statuses, sent } = recordingClient({
        // The fence comes back once the caller has seen it missing, before the client retries.
        onAnswer: async (status) => {
          if (status === 503) await admin.set(FENCE, wire ?? '1');
        },
      });
      try {
        const admitted = await client.enqueue(queue, 'through a 503', { idempotencyKey: key });
        expect(statuses).toEqual([503, 201]);
        expect(admitted.status).toBe('enqueued');
        // The same key on both requests: the caller's, or the one the client minted for the call.
        expect(sent[0]?.key).toBe(key ?? sent[1]?.key);
        expect(sent[1]?.key).toBe(sent[0]?.key);
        expect(await jobCount(queue)).toEqual({ rows: [admitted.id], pending: [admitted.id] });
      } finally {
        await admin.set(FENCE, wire ?? '1');
      }
    });

    it('gives up after its attempts with a retryable error that names its key; that key then makes one job', async () => {
      const queue = randomQueue('client-budget');
      const admin = await server.client();
      const wire = await admin.get(FENCE);
      await admin.del(FENCE);
      const { client, statuses } = recordingClient({ retry: { attempts: 3 } });
      let error: EmqClientError;
      try {
        error = await client.enqueue(queue, 'patient').then(
          () => expect.unreachable('the fence is missing'),
          (thrown: EmqClientError) => thrown,
        );
      } finally {
        await admin.set(FENCE, wire ?? '1');
      }
      expect(statuses).toEqual([503, 503, 503]);
      expect(error).toMatchObject({ code: 'EMQWIRE', status: 503, retryable: true, attempts: 3 });
      expect(error.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      expect(error.message).toContain(
        `Gave up after 3 attempts. Send it again with idempotencyKey "${error.idempotencyKey}"`,
      );
      const admitted = await client.enqueue(queue, 'patient', {
        idempotencyKey: error.idempotencyKey,
      });
      expect(await jobCount(queue)).toEqual({ rows: [admitted.id], pending: [admitted.id] });
    });

    it('with writes paused (CLIENT PAUSE WRITE): the held write lands after the 503, and the retry is its duplicate', async () => {
      const queue = randomQueue('client-pause');
      await whilePaused(queue, async ({ client, statuses }) => {
        const admitted = await client.enqueue(queue, 'held');
        expect(statuses).toEqual([404, 503, expect.any(Number)]);
        expect(await jobCount(queue)).toEqual({ rows: [admitted.id], pending: [admitted.id] });
        expect((await readJob(reader, queue, admitted.id))?.payload.toString()).toBe('held');
      });
    });
  });

  /**
   * A TCP proxy in front of the HTTP front that, on its first connection, forwards the request
   * and loses the answer as it starts to come back: `drop` closes the caller's socket, `hold`
   * keeps it open and silent until the caller gives up. Either way the request was served and
   * the caller never hears of it. Later connections pass both ways.
   */
  async function lossyProxy(
    target: URL,
    lose: 'drop' | 'hold',
  ): Promise<{ url: string; lost: () => number; close: () => Promise<void> }> {
    let connections = 0;
    let lost = 0;
    const sockets = new Set<Socket>();
    const proxy: Server = createServer((caller) => {
      const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
      sockets.add(caller);
      sockets.add(upstream);
      caller.pipe(upstream);
      if (connections++ === 0) {
        upstream.once('data', () => {
          lost += 1;
          if (lose === 'drop') caller.destroy();
        });
      } else {
        upstream.pipe(caller);
      }
      for (const socket of [caller, upstream]) {
        socket.on('error', () => {});
        socket.on('close', () => {
          sockets.delete(socket);
          (socket === caller ? upstream : caller).destroy();
        });
      }
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const address = proxy.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    return {
      url: `http://127.0.0.1:${port}`,
      lost: () => lost,
      close: () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          proxy.close(() => resolve());
        }),
    };
  }

  describe('an answer lost after the request was served', () => {
    // The timeout is far above the function's answer time, even on a loaded machine: the answer
    // has reached the proxy (and been swallowed) before the client gives up on it.
    it.each([
      ['the connection dropped', 'drop', {}],
      ['the request timed out', 'hold', { timeoutMs: 3_000 }],
    ] as const)(
      '(%s) is retried with the same key: the answer is the first request job, as a duplicate',
      async (_, lose, retry) => {
        const queue = randomQueue(`client-${lose}`);
        const proxy = await lossyProxy(new URL(face.url), lose);
        try {
          const path = new URL(endpoint).pathname;
          const { client, statuses, sent } = recordingClient({
            endpoint: `${proxy.url}${path}`,
            retry,
          });
          const admitted = await client.enqueue(queue, 'sent once');
          expect(proxy.lost()).toBe(1);
          expect(statuses).toEqual(['no answer', 200]);
          expect(sent[1]?.key).toBe(sent[0]?.key);
          expect(admitted.status).toBe('duplicate');
          expect(await jobCount(queue)).toEqual({ rows: [admitted.id], pending: [admitted.id] });
        } finally {
          await proxy.close();
        }
      },
    );
  });

  describe('the front', () => {
    it('answers a path the deployed front does not route as it does: 404 before the function', async () => {
      const { origin, pathname } = new URL(face.url);
      const stage = pathname === '/' ? '' : pathname;
      const unrouted = [
        `${origin}${stage}//queues/q/jobs`,
        `${origin}${stage}/queues/q/jobs/`,
        ...(stage === '' ? [`${origin}/prod/queues/q/jobs`] : [`${origin}/queues/q/jobs`]),
      ];
      for (const url of unrouted) {
        const response = await fetch(url, { method: 'POST', body: 'x' });
        if (front.kind === 'url') {
          // A Function URL hands every path to the function, which answers it itself.
          expect(response.headers.get('x-request-id'), url).not.toBeNull();
        } else {
          expect(response.status, url).toBe(404);
          expect(await response.json()).toEqual({ message: 'Not Found' });
          expect(response.headers.get('x-request-id')).toBeNull();
        }
      }
    });
  });

  describe('enqueueBatch', () => {
    it('sends 300 jobs of 30 KB (9 MB) as requests of at most 6 MiB, and answers in input order', async () => {
      const queue = randomQueue('client-batch-9mb');
      const { client, sent, statuses } = recordingClient();
      const jobs = Array.from({ length: 300 }, (_, index) => ({
        payload: `${index}:`.padEnd(30_000, 'x'),
      }));
      const outcomes = await client.enqueueBatch(queue, jobs);
      expect(statuses).toEqual([200, 200]);
      expect(sent.every(({ bytes }) => bytes > 0 && bytes <= MAX_BATCH_BYTES)).toBe(true);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(300).fill('enqueued'));
      const ids = outcomes.map((outcome) => outcome.id ?? '');
      expect(await jobCount(queue)).toEqual({ rows: [...ids].sort(), pending: [...ids].sort() });
      const rows = await Promise.all(ids.map((id) => readJob(reader, queue, id)));
      expect(rows.map((row) => row?.payload.toString().split(':')[0])).toEqual(
        jobs.map((_, index) => String(index)),
      );
    });

    it('answers in input order; keyed and id jobs sent again are duplicates', async () => {
      const queue = randomQueue('client-batch');
      const { client } = recordingClient();
      const id = mintJobId();
      const jobs = [
        { payload: 'text, no key' },
        { payload: Uint8Array.from([1, 2, 255]), idempotencyKey: 'batch-key' },
        { payload: 'mine', id },
      ];
      const first = await client.enqueueBatch(queue, jobs);
      expect(first.map((outcome) => outcome.status)).toEqual(['enqueued', 'enqueued', 'enqueued']);
      expect(first[2]?.id).toBe(id);
      const again = await client.enqueueBatch(queue, jobs.slice(1));
      expect(again).toEqual([
        { id: first[1]?.id, status: 'duplicate' },
        { id, status: 'duplicate' },
      ]);
      const ids = first.map((outcome) => outcome.id ?? '');
      expect(await jobCount(queue)).toEqual({ rows: [...ids].sort(), pending: [...ids].sort() });
      expect((await readJob(reader, queue, ids[1] ?? ''))?.payload).toEqual(
        Buffer.from([1, 2, 255]),
      );
    });

    it('keeps a refused job in its place and the others admitted', async () => {
      const queue = randomQueue('client-batch-conflict');
      const { client } = recordingClient();
      const id = mintJobId();
      await client.enqueue(queue, 'first', { id });
      const outcomes = await client.enqueueBatch(queue, [
        { payload: 'a' },
        { payload: 'second', id },
        { payload: 'b' },
      ]);
      expect(outcomes[0]?.status).toBe('enqueued');
      expect(outcomes[1]?.error).toMatchObject({
        code: 'EMQ_CONFLICT',
        status: 409,
        retryable: false,
      });
      expect(outcomes[2]?.status).toBe('enqueued');
      const ids = [id, outcomes[0]?.id ?? '', outcomes[2]?.id ?? ''];
      expect(await jobCount(queue)).toEqual({ rows: [...ids].sort(), pending: [...ids].sort() });
    });

    it('retried after a 503 whose writes landed late (CLIENT PAUSE WRITE) makes each job once', async () => {
      const queue = randomQueue('client-batch-503');
      await whilePaused(queue, async ({ client, statuses }) => {
        const jobs = [{ payload: 'x' }, { payload: 'y', idempotencyKey: 'y' }];
        const outcomes = await client.enqueueBatch(queue, jobs);
        expect(statuses).toEqual([404, 503, 200]);
        expect(
          outcomes.every((outcome) => outcome.id !== undefined && outcome.error === undefined),
        ).toBe(true);
        const ids = outcomes.map((outcome) => outcome.id ?? '');
        expect(await jobCount(queue)).toEqual({ rows: [...ids].sort(), pending: [...ids].sort() });
      });
    });

    it('throws a refusal of the whole request at once, naming the jobs at fault; nothing is written', async () => {
      const queue = randomQueue('client-batch-400');
      // Told of a larger cap than the service's, the client sends the job, and the service refuses.
      const { client, statuses } = recordingClient({ maxPayloadBytes: 1_048_576 });
      const refused = await client
        .enqueueBatch(queue, [{ payload: 'fine' }, { payload: 'x'.repeat(300_000) }])
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({
        code: 'EMQ_PAYLOAD_TOO_LARGE',
        status: 413,
        retryable: false,
      });
      expect((refused as EmqClientError).items).toEqual([
        expect.objectContaining({ index: 1, code: 'EMQ_PAYLOAD_TOO_LARGE' }),
      ]);
      expect(statuses).toEqual([413]);
      expect(await jobCount(queue)).toEqual({ rows: [], pending: [] });
    });
  });
});
