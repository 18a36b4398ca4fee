// EMQ_ACK_REPLICAS (SPEC §11) on a real primary and replica, both families: an admission is
// acknowledged only once the replica holds it (WAIT in the same pipeline); with the replica
// stopped or its link cut, the write and a duplicate answer alike are EMQ_UNCONFIRMED,
// naming the job, and a retry with the same key once the replica is back confirms that job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Connection,
  enqueue,
  enqueueMany,
  install,
  mintJobId,
  UnconfirmedError,
} from '../../src/index.js';
import { connectTo } from '../support/emq.js';
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

describe.each(['native', 'function'] as const)('with the %s executor', (executor) => {
  // Two WAIT budgets: a short one where the test expects too few confirmations (it waits
  // out the whole budget), a long one where it expects them, since a replica's ack can take
  // far more than 300 ms on a loaded 2-core machine. WAIT returns as soon as it has them.
  let conn: Connection;
  let patient: Connection;
  beforeAll(async () => {
    conn = await connectTo(pair.primary, { executor, ackReplicas: 1, ackTimeoutMs: 300 });
    patient = await connectTo(pair.primary, { executor, ackReplicas: 1, ackTimeoutMs: 20_000 });
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
        { queue, payload: 'b', id: mintJobId() },
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
