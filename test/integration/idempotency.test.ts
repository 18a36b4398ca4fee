// docs/wire.md "Idempotency records" on real servers, both families: one job per idempotency key or
// caller id, with the defects once found each reproduced: a taken minted id re-proposed (never a
// false duplicate), one key raced with two bodies (one job, one 422), a consumed job never
// re-admitted, and a write held past its timeout then retried leaving exactly one job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConflictError,
  type Connection,
  enqueue,
  enqueueMany,
  UnavailableError,
} from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import { connectTo, jobsOf, recordOf, startFencedServer } from '../support/emq.js';
import { digestOf, randomQueue, type ServerHandle } from '../support/servers.js';

let server: ServerHandle;

beforeAll(async () => {
  server = await startFencedServer();
});

afterAll(() => server.stop());

describe.each(['native', 'function'] as const)('with the %s family', (family) => {
  let conn: Connection;
  beforeAll(async () => {
    conn = await connectTo(server, { family });
  });

  it('answers a replayed idempotency key with the same id and changes nothing', async () => {
    const queue = randomQueue('replay');
    const first = await enqueue(conn, { queue, payload: 'p', idempotencyKey: 'order-1' });
    const before = await digestOf(server);
    const again = await enqueue(conn, { queue, payload: 'p', idempotencyKey: 'order-1' });
    expect(again).toEqual({ queue, id: first.id, status: 'duplicate' });
    expect(first.status).toBe('enqueued');
    expect(await digestOf(server)).toBe(before);
  });

  it('keeps the namespaces of the faces apart', async () => {
    const queue = randomQueue('ns');
    const http = await enqueue(conn, { queue, payload: 'p', idempotencyKey: 'k', origin: 'http' });
    const sqs = await enqueue(conn, { queue, payload: 'p', idempotencyKey: 'k', origin: 'sqs' });
    // A caller's id is a key of its own namespace: `k` as an id could never collide either.
    const caller = mintId();
    await enqueue(conn, { queue, payload: 'p', id: caller });
    expect(sqs.id).not.toBe(http.id);
    expect((await recordOf(conn, queue, 'http', 'k'))?.id).toBe(http.id);
    expect((await recordOf(conn, queue, 'sqs', 'k'))?.id).toBe(sqs.id);
    expect((await recordOf(conn, queue, 'id', caller))?.id).toBe(caller);
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

  it('answers one 201 and one 422 for one key raced with two bodies', async () => {
    const queue = randomQueue('race');
    const other = await connectTo(server, { family });
    const results = await Promise.allSettled([
      enqueue(conn, { queue, payload: 'a', idempotencyKey: 'raced' }),
      enqueue(other, { queue, payload: 'b', idempotencyKey: 'raced' }),
    ]);
    const admitted = results.filter((result) => result.status === 'fulfilled');
    const refused = results.filter((result) => result.status === 'rejected');
    expect(admitted).toHaveLength(1);
    expect(refused.map((result) => (result.reason as ConflictError).code)).toEqual([
      'EMQ_IDEMPOTENCY_MISMATCH',
    ]);
    expect((await jobsOf(conn, queue)).rows).toHaveLength(1);
  });

  it('answers duplicate for a caller id sent twice with the same payload', async () => {
    const queue = randomQueue('callerid');
    const id = mintId();
    await enqueue(conn, { queue, id, payload: 'p' });
    expect(await enqueue(conn, { queue, id, payload: 'p' })).toEqual({
      queue,
      id,
      status: 'duplicate',
    });
  });

  it('refuses a caller id that exists with another payload (EMQ_CONFLICT) and writes nothing', async () => {
    const queue = randomQueue('conflict');
    const id = mintId();
    await enqueue(conn, { queue, id, payload: 'p' });
    const before = await digestOf(server);
    await expect(enqueue(conn, { queue, id, payload: 'other' })).rejects.toMatchObject({
      code: 'EMQ_CONFLICT',
      status: 409,
    });
    expect(await digestOf(server)).toBe(before);
  });

  it('proposes another id when the minted one is taken, even with an equal payload (defects 2 and 4)', async () => {
    const queue = randomQueue('collide');
    const taken = mintId();
    const fresh = mintId();
    const ids = [taken, fresh];
    const minting = await connectTo(server, {
      family,
      mintId: () => ids.shift() ?? 'JOB00000000000',
    });
    // Another message's job already holds the id, with the same body.
    await enqueue(conn, { queue, id: taken, payload: 'same' });
    const admitted = await enqueue(minting, {
      queue,
      payload: 'same',
      idempotencyKey: 'message-2',
      origin: 'sqs',
    });
    expect(admitted).toEqual({ queue, id: fresh, status: 'enqueued' });
    expect(await jobsOf(conn, queue)).toEqual({ rows: [taken, fresh], pending: [taken, fresh] });
  });

  it('gives up, retryably, after a bounded run of taken ids and writes nothing', async () => {
    const queue = randomQueue('bounded');
    const taken = mintId();
    await enqueue(conn, { queue, id: taken, payload: 'x' });
    const stuck = await connectTo(server, { family, mintId: () => taken });
    const before = await digestOf(server);
    await expect(
      enqueue(stuck, { queue, payload: 'y', idempotencyKey: 'k' }),
    ).rejects.toBeInstanceOf(UnavailableError);
    expect(await digestOf(server)).toBe(before);
  });

  it('never re-admits a consumed job on a replay within the TTL (defect 5)', async () => {
    const queue = randomQueue('consumed');
    const first = await enqueue(conn, { queue, payload: 'p', idempotencyKey: 'once' });
    // A worker consumes the job: its row and pending entry go.
    await conn.client.del(`emq:{${queue}}:job:${first.id}`);
    await conn.client.zrem(`emq:{${queue}}:pending`, first.id);
    const replay = await enqueue(conn, { queue, payload: 'p', idempotencyKey: 'once' });
    expect(replay).toEqual({ queue, id: first.id, status: 'duplicate' });
    expect(await jobsOf(conn, queue)).toEqual({ rows: [], pending: [] });
  });

  it('never re-creates a consumed job under its caller id: the record names it', async () => {
    const queue = randomQueue('consumed-id');
    const id = mintId();
    await enqueue(conn, { queue, payload: 'p', id });
    await conn.client.del(`emq:{${queue}}:job:${id}`);
    await conn.client.zrem(`emq:{${queue}}:pending`, id);
    expect(await enqueue(conn, { queue, payload: 'p', id })).toEqual({
      queue,
      id,
      status: 'duplicate',
    });
    expect(await jobsOf(conn, queue)).toEqual({ rows: [], pending: [] });
  });

  it('refuses another body after the job was consumed: the record keeps the digest', async () => {
    const queue = randomQueue('consumed-other');
    const first = await enqueue(conn, { queue, payload: 'p', idempotencyKey: 'k' });
    const id = mintId();
    await enqueue(conn, { queue, payload: 'p', id });
    for (const gone of [first.id, id]) {
      await conn.client.del(`emq:{${queue}}:job:${gone}`);
      await conn.client.zrem(`emq:{${queue}}:pending`, gone);
    }
    const before = await digestOf(server);
    await expect(
      enqueue(conn, { queue, payload: 'other', idempotencyKey: 'k' }),
    ).rejects.toMatchObject({ code: 'EMQ_IDEMPOTENCY_MISMATCH', status: 422, jobId: first.id });
    await expect(enqueue(conn, { queue, payload: 'other', id })).rejects.toMatchObject({
      code: 'EMQ_CONFLICT',
      status: 409,
    });
    expect(await digestOf(server)).toBe(before);
  });

  it('records a caller id whose row another host wrote without a record, judged by its payload', async () => {
    const queue = randomQueue('seeded');
    const id = mintId();
    // Another host (the seeds' EMQ.ENQUEUE / emq_enqueue) writes rows without records.
    await conn.client.call(
      'FCALL',
      'emq_enqueue',
      '2',
      `emq:{${queue}}:job:${id}`,
      `emq:{${queue}}:pending`,
      id,
      'p',
    );
    expect(await enqueue(conn, { queue, payload: 'p', id })).toEqual({
      queue,
      id,
      status: 'duplicate',
    });
    expect((await recordOf(conn, queue, 'id', id))?.id).toBe(id);
    await expect(enqueue(conn, { queue, payload: 'q', id })).rejects.toMatchObject({
      code: 'EMQ_CONFLICT',
    });
  });

  it('answers each admission of one call as if alone: the same key twice is one job', async () => {
    const queue = randomQueue('twice');
    const results = await enqueueMany(conn, [
      { queue, payload: 'p', idempotencyKey: 'dup' },
      { queue, payload: 'p', idempotencyKey: 'dup' },
      { queue, payload: 'q', idempotencyKey: 'dup' },
    ]);
    const [first, second, third] = results;
    expect(first).toMatchObject({ status: 'enqueued' });
    expect(second).toEqual({ queue, id: (first as { id: string }).id, status: 'duplicate' });
    expect(third).toMatchObject({ code: 'EMQ_IDEMPOTENCY_MISMATCH' });
    expect((await jobsOf(conn, queue)).rows).toHaveLength(1);
  });

  it('forgets a key once its record has expired, by the server clock', async () => {
    const queue = randomQueue('expiry');
    const brief = await connectTo(server, { family, dedupeTtlMs: 1_000 });
    const first = await enqueue(brief, { queue, payload: 'p', idempotencyKey: 'brief' });
    const expiresAt = (await recordOf(brief, queue, 'http', 'brief'))?.expiresAt ?? 0;
    // Until the server's clock passes the record's expiry the key answers duplicate, after it
    // the key is new: a second job, the first untouched. A duplicate answer after a clock
    // reading past the expiry would be a dead record counted alive.
    const serverMs = async () => {
      const [seconds, micros] = await brief.client.time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    };
    let readAt = await serverMs();
    let later = await enqueue(brief, { queue, payload: 'p', idempotencyKey: 'brief' });
    while (later.status === 'duplicate') {
      expect(later.id).toBe(first.id);
      expect(readAt).toBeLessThan(expiresAt);
      readAt = await serverMs();
      later = await enqueue(brief, { queue, payload: 'p', idempotencyKey: 'brief' });
    }
    expect(later.status).toBe('enqueued');
    expect(later.id).not.toBe(first.id);
    expect((await jobsOf(brief, queue)).rows).toHaveLength(2);
  });

  it('admits keyless requests of one batch as separate jobs, one round trip', async () => {
    const queue = randomQueue('keyless');
    const results = await enqueueMany(conn, [
      { queue, payload: 'same' },
      { queue, payload: 'same' },
    ]);
    expect(results.map((result) => ('status' in result ? result.status : result))).toEqual([
      'enqueued',
      'enqueued',
    ]);
    expect((await jobsOf(conn, queue)).rows).toHaveLength(2);
  });

  it('leaves exactly one job when a write held past its timeout is retried with its key', async () => {
    const queue = randomQueue('held');
    const impatient = await connectTo(server, { family, commandTimeoutMs: 200 });
    const admin = await server.client();
    try {
      await admin.call('CLIENT', 'PAUSE', '1000', 'WRITE');
      const failure = await enqueue(impatient, {
        queue,
        payload: 'p',
        idempotencyKey: 'retry-me',
      }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(UnavailableError);
      // The held command runs when the pause ends; the caller's retry must find that job.
      await expect
        .poll(async () => (await recordOf(conn, queue, 'http', 'retry-me')) !== null, {
          timeout: 30_000,
        })
        .toBe(true);
      const retried = await enqueue(conn, { queue, payload: 'p', idempotencyKey: 'retry-me' });
      expect(retried.status).toBe('duplicate');
      expect(await jobsOf(conn, queue)).toEqual({ rows: [retried.id], pending: [retried.id] });
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
      admin.disconnect();
    }
  });
});
