// Every 503's advice, followed, makes exactly one job (README.md, "The HTTP face"). On a real
// server whose writes are held by CLIENT PAUSE WRITE past the command timeout (or past the
// invocation's deadline), so that each write lands after its caller was told 503: each answer the
// faces can give is followed as it says, and the jobs are counted in Valkey.
import type { SQSBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/http/handler.js';
import { containerAdmission, resetContainer } from '../../functions/shared/connection.js';
import { type LogSink, setLogSink } from '../../functions/shared/log.js';
import { handleSqsBatch } from '../../functions/sqs/batch.js';
import { mintId } from '../../src/keyspace/ids.js';
import {
  fixture,
  type HttpEventJson,
  withBody,
  withHeader,
  withPath,
} from '../fixtures/http/events.js';
import { clearEmqEnv, configureContainer, invoke } from '../fixtures/http/invoke.js';
import { sqsEvent, sqsRecord } from '../fixtures/sqs/records.js';
import { jobRowsOn, startFencedServer } from '../support/emq.js';
import { randomQueue, type ServerHandle } from '../support/servers.js';

let server: ServerHandle;
let previousSink: LogSink;
const HELD_MS = 1_500;

beforeAll(async () => {
  previousSink = setLogSink(() => {});
  server = await startFencedServer();
  await configureContainer(server, { EMQ_COMMAND_TIMEOUT_MS: '300' });
});

afterAll(async () => {
  await resetContainer();
  setLogSink(previousSink);
  clearEmqEnv();
  await server?.stop();
});

/**
 * Runs `request` while the server holds writes, then ends the hold: the held writes run then,
 * after their callers were answered. Resolves with the answer once `landed` jobs are in `queue`.
 */
async function held<T>(queue: string, landed: number, request: () => Promise<T>): Promise<T> {
  await invoke(handler, fixture('v2-get', { queue })); // the connection is open before the hold
  const admin = await server.client();
  try {
    await admin.call('CLIENT', 'PAUSE', String(HELD_MS), 'WRITE');
    try {
      return await request();
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
      await expect.poll(() => jobRowsOn([server], queue), { timeout: 10_000 }).toBe(landed);
    }
  } finally {
    admin.disconnect();
  }
}

/** The event that follows a `retry` member: the same body, the method and path it names. */
function following(retry: { method: string; path: string }, body: string): HttpEventJson {
  expect(retry.method).toBe('PUT');
  const [, , queue, , id] = retry.path.split('/');
  return withBody(fixture('v2-put', { queue: queue as string, id: id as string }), body);
}

function post(queue: string, body: string): HttpEventJson {
  return withBody(fixture('v2-post', { queue }), body);
}

function batch(queue: string, jobs: readonly object[]): HttpEventJson {
  return withBody(
    withPath(fixture('v2-post', { queue }), `/queues/${queue}/jobs/batch`),
    JSON.stringify({ jobs }),
  );
}

describe('the HTTP face', () => {
  it('a keyless POST held past the command timeout: PUT its id with the same body (200), one job', async () => {
    const queue = randomQueue('advice-post');
    const answer = await held(queue, 1, () => invoke(handler, post(queue, 'keyless')));
    expect(answer.response.statusCode).toBe(503);
    expect(answer.body).toMatchObject({ written: 'maybe', retry: { method: 'PUT' } });
    const retry = answer.body.retry as { method: string; path: string };
    expect(retry.path).toBe(`/queues/${queue}/jobs/${String(answer.body.id)}`);
    const followed = await invoke(handler, following(retry, 'keyless'));
    expect(followed.response.statusCode).toBe(200);
    expect(followed.body).toMatchObject({ id: answer.body.id, status: 'duplicate' });
    expect(await jobRowsOn([server], queue)).toBe(1);
  });

  it('a keyless POST at its deadline: PUT its id with the same body (200), one job', async () => {
    const queue = randomQueue('advice-deadline');
    await configureContainer(server, { EMQ_COMMAND_TIMEOUT_MS: '5000' });
    try {
      // The answer is due 250 ms before the deadline, while the write is still held.
      const answer = await held(queue, 1, () =>
        invoke(handler, post(queue, 'late'), { remainingMs: 600 }),
      );
      expect(answer.response.statusCode).toBe(503);
      expect(answer.body).toMatchObject({ written: 'maybe', retry: { method: 'PUT' } });
      const followed = await invoke(
        handler,
        following(answer.body.retry as { method: string; path: string }, 'late'),
      );
      expect(followed.response.statusCode).toBe(200);
      expect(await jobRowsOn([server], queue)).toBe(1);
    } finally {
      await configureContainer(server, { EMQ_COMMAND_TIMEOUT_MS: '300' });
    }
  });

  it('a keyed POST and a PUT: the same request again (200), one job each', async () => {
    const queue = randomQueue('advice-keyed');
    const keyed = withHeader(post(queue, 'keyed'), 'idempotency-key', 'order-1');
    const first = await held(queue, 1, () => invoke(handler, keyed));
    expect(first.response.statusCode).toBe(503);
    expect(first.body.retry).toBeUndefined();
    expect((await invoke(handler, keyed)).response.statusCode).toBe(200);
    const put = withBody(fixture('v2-put', { queue, id: String(first.body.id) }), 'keyed');
    expect((await invoke(handler, put)).response.statusCode).toBe(200);
    expect(await jobRowsOn([server], queue)).toBe(1);
    const other = randomQueue('advice-put');
    const own = withBody(fixture('v2-put', { queue: other, id: mintId() }), 'own');
    const refused = await held(other, 1, () => invoke(handler, own));
    expect(refused.response.statusCode).toBe(503);
    expect((await invoke(handler, own)).response.statusCode).toBe(200);
    expect(await jobRowsOn([server], other)).toBe(1);
  });

  it.each([
    ['held past the command timeout', 30_000],
    ['at its deadline', 600],
  ])(
    'a batch %s: send it again with each listed item given its id, one job each',
    async (_, remainingMs) => {
      const queue = randomQueue('advice-batch');
      const items = [{ payload: 'a' }, { payload: 'b', idempotencyKey: 'k-b' }, { payload: 'c' }];
      await configureContainer(server, {
        EMQ_COMMAND_TIMEOUT_MS: remainingMs === 600 ? '5000' : '300',
      });
      try {
        const answer = await held(queue, 3, () =>
          invoke(handler, batch(queue, items), { remainingMs }),
        );
        expect(answer.response.statusCode).toBe(503);
        const listed = answer.body.items as { index: number; id?: string }[];
        // Each listed item with its id in place of its key (an item has one or the other).
        const again = items.map((item, index) => {
          const id = listed.find((entry) => entry.index === index)?.id;
          return id === undefined ? item : { payload: item.payload, id };
        });
        const followed = await invoke(handler, batch(queue, again));
        expect(followed.response.statusCode).toBe(200);
        const results = followed.body.results as { status?: string }[];
        expect(results.map((result) => result.status)).toEqual([
          'duplicate',
          'duplicate',
          'duplicate',
        ]);
        expect(await jobRowsOn([server], queue)).toBe(3);
      } finally {
        await configureContainer(server, { EMQ_COMMAND_TIMEOUT_MS: '300' });
      }
    },
  );
});

describe('the SQS face', () => {
  it('a record held past the command timeout is retried; its redelivery makes no second job', async () => {
    const queue = randomQueue('advice-sqs');
    const record = sqsRecord({ body: 'sqs', queue });
    const deps = {
      admission: containerAdmission(),
      sqs: { send: () => Promise.reject(new Error('no record is dead-lettered here')) },
    };
    const first = await held(queue, 1, () => handleSqsBatch(sqsEvent([record]), deps));
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    const again: SQSBatchResponse = await handleSqsBatch(sqsEvent([record]), deps);
    expect(again.batchItemFailures).toEqual([]);
    expect(await jobRowsOn([server], queue)).toBe(1);
  });
});
