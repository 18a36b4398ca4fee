// SPEC §5 on real servers: one job per idempotency key or caller id, collisions re-minted,
// and a write held past its timeout then retried leaves exactly one job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConflictError,
  type Connection,
  enqueue,
  jobIdAt,
  UnavailableError,
} from '../../src/index.js';
import { connectTo, jobsOf, startFencedServer } from '../support/emq.js';
import { digestOf, randomQueue, type ServerHandle } from '../support/servers.js';

let server: ServerHandle;

beforeAll(async () => {
  server = await startFencedServer();
});

afterAll(() => server.stop());

const SENT = Date.UTC(2026, 10, 30, 9, 0, 0);

describe.each(['native', 'script'] as const)('with the %s executor', (executor) => {
  let conn: Connection;
  const warnings: string[] = [];
  beforeAll(async () => {
    conn = await connectTo(server, { executor, onWarning: (event) => warnings.push(event) });
  });

  it('answers a replayed idempotency key with the same id and writes nothing', async () => {
    const queue = randomQueue('replay');
    const first = await enqueue(conn, { queue, payload: 'p', idempotencyKey: 'order-1' });
    const before = await digestOf(server);
    const again = await enqueue(conn, { queue, payload: 'p', idempotencyKey: 'order-1' });
    expect(again).toEqual({ queue, id: first.id, status: 'duplicate' });
    expect(first.status).toBe('enqueued');
    expect(await digestOf(server)).toBe(before);
  });

  it('refuses an idempotency key reused with another payload and writes nothing', async () => {
    const queue = randomQueue('mismatch');
    await enqueue(conn, { queue, payload: 'first', idempotencyKey: 'k' });
    const before = await digestOf(server);
    const failure = await enqueue(conn, { queue, payload: 'second', idempotencyKey: 'k' }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ConflictError);
    expect(failure).toMatchObject({ code: 'EMQ_IDEMPOTENCY_MISMATCH', status: 422 });
    expect(await digestOf(server)).toBe(before);
  });

  it('answers duplicate for a caller id sent twice with the same payload', async () => {
    const queue = randomQueue('callerid');
    const id = 'JOB0KHTOWnGLuC';
    await enqueue(conn, { queue, id, payload: 'p' });
    expect(await enqueue(conn, { queue, id, payload: 'p' })).toEqual({
      queue,
      id,
      status: 'duplicate',
    });
  });

  it('refuses a caller id that exists with another payload (EMQ_CONFLICT) and writes nothing', async () => {
    const queue = randomQueue('conflict');
    const id = 'JOB0KHTOWnGLuC';
    await enqueue(conn, { queue, id, payload: 'p' });
    const before = await digestOf(server);
    await expect(enqueue(conn, { queue, id, payload: 'other' })).rejects.toMatchObject({
      code: 'EMQ_CONFLICT',
      status: 409,
    });
    expect(await digestOf(server)).toBe(before);
  });

  it('mints again when a minted id collides with an existing row', async () => {
    const queue = randomQueue('collide');
    const taken = 'JOB0KHTOWnGLuC';
    const fresh = 'JOB0KHTOWnGLuD';
    const ids = [taken, fresh];
    const minting = await connectTo(server, {
      executor,
      mintId: () => ids.shift() ?? 'JOB00000000000',
    });
    await enqueue(conn, { queue, id: taken, payload: 'someone else' });
    const admitted = await enqueue(minting, { queue, payload: 'mine' });
    expect(admitted).toEqual({ queue, id: fresh, status: 'enqueued' });
    expect(await jobsOf(conn, queue)).toEqual({ rows: [taken, fresh], pending: [taken, fresh] });
  });

  it('probes the next derived id when the first one belongs to another message', async () => {
    const queue = randomQueue('derived');
    const key = 'message-1';
    const derive = { timeMs: SENT, firstAttempt: true };
    // Find the first candidate by admitting once on a scratch queue, then occupy it here.
    const scratch = await enqueue(conn, {
      queue: randomQueue('scratch'),
      payload: 'x',
      idempotencyKey: key,
      derive,
    });
    await enqueue(conn, { queue, id: scratch.id, payload: 'another message' });

    const admitted = await enqueue(conn, { queue, payload: 'mine', idempotencyKey: key, derive });
    expect(admitted.id).not.toBe(scratch.id);
    expect(admitted.status).toBe('enqueued');
    const replay = await enqueue(conn, {
      queue,
      payload: 'mine',
      idempotencyKey: key,
      derive: { timeMs: SENT, firstAttempt: false },
    });
    expect(replay).toEqual({ queue, id: admitted.id, status: 'duplicate' });
    expect((await jobsOf(conn, queue)).rows).toHaveLength(2);
  });

  it('recognises a replay whose dedupe record expired by its equal payload', async () => {
    const queue = randomQueue('expired');
    const derive = { timeMs: SENT, firstAttempt: true };
    const first = await enqueue(conn, { queue, payload: 'p', idempotencyKey: 'm', derive });
    const records = await conn.client.keys(`emq:{${queue}}:dedupe:*`);
    expect(records).toHaveLength(1);
    await conn.client.del(...records);
    const again = await enqueue(conn, { queue, payload: 'p', idempotencyKey: 'm', derive });
    expect(again).toEqual({ queue, id: first.id, status: 'duplicate' });
    expect((await jobsOf(conn, queue)).rows).toEqual([first.id]);
  });

  it('keeps the id an earlier attempt recorded and takes back the optimistic second row', async () => {
    const queue = randomQueue('authority');
    const earlier = 'JOB0000000000A';
    const key = 'message-2';
    // An earlier attempt recorded `earlier` for this key and then failed before writing.
    const scratch = await enqueue(conn, {
      queue: randomQueue('scratch'),
      payload: 'x',
      idempotencyKey: key,
      derive: { timeMs: SENT, firstAttempt: true },
    });
    const dedupe = (await conn.client.keys(`emq:{${scratch.queue}}:dedupe:*`))[0] ?? '';
    await conn.client.set(dedupe.replace(scratch.queue, queue), earlier);
    warnings.length = 0;

    const admitted = await enqueue(conn, {
      queue,
      payload: 'p',
      idempotencyKey: key,
      derive: { timeMs: SENT, firstAttempt: true },
    });
    expect(admitted).toEqual({ queue, id: earlier, status: 'enqueued' });
    expect(await jobsOf(conn, queue)).toEqual({ rows: [earlier], pending: [earlier] });
    expect(warnings).toEqual(['second-row-removed']);
  });

  it('derives the same id for the same message and time on every attempt', () => {
    expect(jobIdAt(SENT, 5)).toBe(jobIdAt(SENT, 5));
  });

  it('leaves exactly one job when a write held past its timeout is retried with its key', async () => {
    const queue = randomQueue('held');
    const impatient = await connectTo(server, { executor, commandTimeoutMs: 200 });
    const admin = await server.client();
    try {
      await admin.call('CLIENT', 'PAUSE', '1000', 'WRITE');
      const failure = await enqueue(impatient, {
        queue,
        payload: 'p',
        idempotencyKey: 'retry-me',
      }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(UnavailableError);
      // The held commands run when the pause ends; the caller's retry must find that job.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const retried = await enqueue(conn, { queue, payload: 'p', idempotencyKey: 'retry-me' });
      const jobs = await jobsOf(conn, queue);
      expect(jobs).toEqual({ rows: [retried.id], pending: [retried.id] });
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
      admin.disconnect();
    }
  });
});
