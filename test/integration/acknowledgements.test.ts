// EMQ_ACK_REPLICAS (docs/reliability.md, "Acknowledgements") on a real primary and replica, both
// families: an admission is acknowledged only once the replica holds it (WAIT in the same
// pipeline); with the replica stopped or its link cut, the write and a duplicate answer alike are
// EMQ_UNCONFIRMED, naming the job, and a retry with the same key once the replica is back confirms
// that job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as httpHandler } from '../../functions/http/handler.js';
import { resetContainer } from '../../functions/shared/connection.js';
import { setLogSink } from '../../functions/shared/log.js';
import { handler as sqsHandler } from '../../functions/sqs/handler.js';
import { install } from '../../src/connection/fence.js';
import { type Connection, enqueue, enqueueMany, UnconfirmedError } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import { fixture, lambdaContext, withBody, withPath } from '../fixtures/http/events.js';
import { clearEmqEnv, configureContainer, invoke } from '../fixtures/http/invoke.js';
import { redelivered, sqsEvent, sqsRecord } from '../fixtures/sqs/records.js';
import { connectTo, jobsOf } from '../support/emq.js';
import {
  LOOPBACK,
  type ReplicatedHandle,
  randomQueue,
  startReplicated,
} from '../support/servers.js';

let pair: ReplicatedHandle;

beforeAll(async () => {
  pair = await startReplicated({ module: true, replicas: 1 });
  await install(await connectTo(pair.primary, { checkFence: false }));
  await pair.waitForSync();
});

afterAll(() => pair.stop());

describe.each(['native', 'function'] as const)('with the %s family', (family) => {
  // Two WAIT budgets: a short one where the test expects too few confirmations (it waits
  // out the whole budget), a long one where it expects them, since a replica's ack can take
  // far more than 300 ms on a loaded 2-core machine. WAIT returns as soon as it has them.
  let conn: Connection;
  let patient: Connection;
  beforeAll(async () => {
    conn = await connectTo(pair.primary, { family, ackReplicas: 1, ackTimeoutMs: 300 });
    patient = await connectTo(pair.primary, { family, ackReplicas: 1, ackTimeoutMs: 20_000 });
  });

  it('acknowledges a job only when the replica holds it', async () => {
    const queue = randomQueue('acked');
    const admitted = await enqueue(patient, { queue, payload: 'p', idempotencyKey: 'k' });
    expect(admitted.status).toBe('enqueued');
    const replica = await pair.replicas[0]?.client();
    try {
      expect(await replica?.hget(`emq:{${queue}}:job:${admitted.id}`, 'payload')).toBe('p');
    } finally {
      replica?.disconnect();
    }
  });

  it('answers EMQ_UNCONFIRMED, naming the job, while the replica is stopped; the retry confirms', async () => {
    const queue = randomQueue('stopped');
    const replica = pair.replicas[0];
    if (replica === undefined) throw new Error('no replica');
    await replica.kill('SIGSTOP');
    let failures: unknown[];
    try {
      const first = await enqueue(conn, { queue, payload: 'p', idempotencyKey: 'k' }).catch(
        (error: unknown) => error,
      );
      // A duplicate answer is confirmed the same way: it is unconfirmed too.
      const again = await enqueue(conn, { queue, payload: 'p', idempotencyKey: 'k' }).catch(
        (error: unknown) => error,
      );
      const batch = await enqueueMany(conn, [
        { queue, payload: 'a' },
        { queue, payload: 'b', id: mintId() },
      ]);
      failures = [first, again, ...batch];
    } finally {
      await replica.kill('SIGCONT');
    }
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(UnconfirmedError);
      expect(failure).toMatchObject({ code: 'EMQ_UNCONFIRMED', retryable: true, status: 503 });
    }
    const [first, again] = failures as UnconfirmedError[];
    expect(again?.jobId).toBe(first?.jobId);
    expect(first?.message).toContain(first?.jobId);
    await pair.waitForSync();
    const retried = await enqueue(patient, { queue, payload: 'p', idempotencyKey: 'k' });
    expect(retried).toEqual({ queue, id: first?.jobId, status: 'duplicate' });
  });

  it('answers EMQ_UNCONFIRMED while the replication link is cut', async () => {
    const queue = randomQueue('cut');
    const replica = await pair.replicas[0]?.client();
    if (replica === undefined) throw new Error('no replica');
    try {
      // Point the replica at a port nothing listens on: the link is down, the replica alive.
      await replica.call('REPLICAOF', LOOPBACK, '1');
      const failure = await enqueue(conn, { queue, payload: 'p' }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(UnconfirmedError);
    } finally {
      await replica.call('REPLICAOF', LOOPBACK, String(pair.primary.port));
      replica.disconnect();
    }
    await pair.waitForSync();
    expect((await enqueue(patient, { queue, payload: 'p' })).status).toBe('enqueued');
  });
});

describe.each(['native', 'function'] as const)(
  'through the faces, with the %s family',
  (family) => {
    const restore: { sink?: (line: string) => void } = {};
    beforeAll(() => {
      restore.sink = setLogSink(() => {});
    });
    afterAll(async () => {
      if (restore.sink !== undefined) setLogSink(restore.sink);
      await resetContainer();
      clearEmqEnv();
    });
    const configure = (ackTimeoutMs: number) =>
      configureContainer(pair.primary, {
        EMQ_EXECUTOR: family,
        EMQ_ACK_REPLICAS: '1',
        EMQ_ACK_TIMEOUT_MS: String(ackTimeoutMs),
        // WAIT runs inside the command timeout (loadConfig refuses a longer one).
        EMQ_COMMAND_TIMEOUT_MS: String(ackTimeoutMs + 10_000),
        EMQ_DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/emq-dead',
      });
    /** Runs `work` with the replica stopped, so no write of it can be confirmed. */
    async function replicaStopped<T>(work: () => Promise<T>): Promise<T> {
      const replica = pair.replicas[0];
      if (replica === undefined) throw new Error('no replica');
      await replica.kill('SIGSTOP');
      try {
        return await work();
      } finally {
        await replica.kill('SIGCONT');
        await pair.waitForSync();
      }
    }

    it('answers a PUT and its replay 503 while no replica holds the job: a duplicate is confirmed too', async () => {
      const queue = randomQueue('put-unconfirmed');
      const id = mintId();
      const put = fixture('v2-put', { queue, id });
      await configure(300);
      const [first, again] = await replicaStopped(async () => [
        await invoke(httpHandler, put),
        await invoke(httpHandler, put),
      ]);
      for (const answer of [first, again]) {
        expect(answer?.response.statusCode).toBe(503);
        expect(answer?.body).toMatchObject({ code: 'EMQ_UNCONFIRMED', id, written: 'yes' });
      }
      await configure(20_000);
      const confirmed = await invoke(httpHandler, put);
      expect(confirmed.response.statusCode).toBe(200);
      expect(await jobsOf(await connectTo(pair.primary), queue)).toEqual({
        rows: [id],
        pending: [id],
      });
    });

    it('retries an SQS record with emq-job-id and its redelivery while unconfirmed, then handles it once', async () => {
      const queue = randomQueue('sqs-unconfirmed');
      const record = sqsRecord({ queue, jobId: mintId(), body: 'p' });
      await configure(300);
      const [first, again] = await replicaStopped(async () => [
        await sqsHandler(sqsEvent([record]), lambdaContext()),
        await sqsHandler(sqsEvent([redelivered(record)]), lambdaContext()),
      ]);
      expect(first).toEqual({ batchItemFailures: [{ itemIdentifier: record.messageId }] });
      expect(again).toEqual({ batchItemFailures: [{ itemIdentifier: record.messageId }] });
      await configure(20_000);
      expect(await sqsHandler(sqsEvent([redelivered(record, 3)]), lambdaContext())).toEqual({
        batchItemFailures: [],
      });
      expect((await jobsOf(await connectTo(pair.primary), queue)).rows).toHaveLength(1);
    });

    it("answers a whole batch 503 naming every item's id; following its advice admits each once", async () => {
      const queue = randomQueue('batch-unconfirmed');
      const body = {
        jobs: [{ payload: 'a' }, { payload: 'b' }, { payload: 'c', idempotencyKey: 'c' }],
      };
      const event = (value: unknown) =>
        withPath(
          withBody(fixture('v2-post', { queue }), JSON.stringify(value)),
          `/queues/${queue}/jobs/batch`,
        );
      await configure(300);
      const refused = await replicaStopped(() => invoke(httpHandler, event(body)));
      expect(refused.response.statusCode).toBe(503);
      expect(refused.response.headers['retry-after']).toBeDefined();
      const items = refused.body.items as { index: number; id?: string; written: string }[];
      expect(items.map((item) => item.written)).toEqual(['yes', 'yes', 'yes']);
      expect(items.every((item) => typeof item.id === 'string')).toBe(true);
      expect(String(refused.body.detail)).toMatch(
        /Send the batch again with each item that has an "id"/,
      );
      // The advice, followed: the same batch, each listed item given its id.
      await configure(20_000);
      const again = {
        jobs: body.jobs.map((job, index) => ({
          payload: job.payload,
          id: items.find((item) => item.index === index)?.id,
        })),
      };
      const retried = await invoke(httpHandler, event(again));
      expect(retried.response.statusCode).toBe(200);
      expect((retried.body.results as { status: string }[]).map((result) => result.status)).toEqual(
        ['duplicate', 'duplicate', 'duplicate'],
      );
      expect((await jobsOf(await connectTo(pair.primary), queue)).rows).toHaveLength(3);
    });
  },
);

describe('without acknowledgements', () => {
  it('sends no WAIT: a stopped replica does not hold a write back', async () => {
    const conn = await connectTo(pair.primary, { ackReplicas: 0 });
    const replica = pair.replicas[0];
    if (replica === undefined) throw new Error('no replica');
    await replica.kill('SIGSTOP');
    try {
      const admitted = await enqueue(conn, { queue: randomQueue('noack'), payload: 'p' });
      expect(admitted.status).toBe('enqueued');
    } finally {
      await replica.kill('SIGCONT');
    }
    await pair.waitForSync();
  });
});
