// EMQ.ADMIT's replies (SPEC §4): 1 new, 0 known (same payload or consumed), -1 known with
// another payload, 2 proposed row taken; the row at birth, the record and its TTL.
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomQueue, type ServerHandle, startStandalone } from '../../test/support/servers.js';
import { admit, admitKeys, expectUnchanged, jobId } from './helpers.js';

let server: ServerHandle;
let client: Valkey;

beforeAll(async () => {
  server = await startStandalone({ module: true });
  client = await server.client();
  await client.call('EMQ.WIRE.INSTALL');
});
afterAll(() => server.stop());

const EVERY_BYTE = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

describe('EMQ.ADMIT', () => {
  it('1: writes the row (three fields, in order), the pending entry and the record with its TTL', async () => {
    const q = randomQueue('new');
    const id = jobId(1);
    const keys = admitKeys(q, id, 'k1');
    expect(await admit(client, q, id, 'k1', EVERY_BYTE, 90_000)).toEqual([1, id]);

    // Exactly three fields; the bytes verbatim. (The HSET's field order is checked on the
    // replication stream, where it is the command's own; a hashtable answers HGETALL in any.)
    const row = (await client.callBuffer('HGETALL', keys.row)) as Buffer[];
    const fields = new Map<string, Buffer>();
    for (let i = 0; i < row.length; i += 2) fields.set(String(row[i]), row[i + 1] as Buffer);
    expect([...fields.keys()].sort()).toEqual(['attempts', 'payload', 'state']);
    expect(fields.get('state')?.toString()).toBe('pending');
    expect(fields.get('attempts')?.toString()).toBe('0');
    expect(fields.get('payload')).toEqual(EVERY_BYTE);
    expect(await client.zrange(keys.pending, 0, -1, 'WITHSCORES')).toEqual([id, '0']);
    expect(await client.get(keys.dedupe)).toBe(id);
    const ttl = await client.pttl(keys.dedupe);
    expect(ttl).toBeGreaterThan(80_000);
    expect(ttl).toBeLessThanOrEqual(90_000);
    expect(await client.pttl(keys.row)).toBe(-1);
    expect(await client.pttl(keys.pending)).toBe(-1);
    expect(await client.type(keys.row)).toBe('hash');
  });

  it('1: an empty payload is a payload', async () => {
    const q = randomQueue('empty');
    const id = jobId(2);
    expect(await admit(client, q, id, 'k', '')).toEqual([1, id]);
    expect(await client.hget(admitKeys(q, id, 'k').row, 'payload')).toBe('');
  });

  it('0: a replay with the same payload names the first id, writes no second row, keeps the TTL', async () => {
    const q = randomQueue('replay');
    const [first, second] = [jobId(3), jobId(4)];
    const keys = admitKeys(q, first, 'k');
    expect(await admit(client, q, first, 'k', EVERY_BYTE, 60_000)).toEqual([1, first]);
    const expiry = await client.call('PEXPIRETIME', keys.dedupe);

    // The touch rewrites the record with its own value and TTL: every key stays as it was.
    const reply = await expectUnchanged(client, () =>
      admit(client, q, second, 'k', EVERY_BYTE, 999_999),
    );
    expect(reply).toEqual([0, first]);
    expect(await client.call('PEXPIRETIME', keys.dedupe)).toBe(expiry);
    expect(await client.exists(admitKeys(q, second, 'k').row)).toBe(0);
    expect(await client.zrange(keys.pending, 0, -1)).toEqual([first]);
  });

  it('0: a consumed job is not re-created by a replay', async () => {
    const q = randomQueue('consumed');
    const [first, second] = [jobId(5), jobId(6)];
    const keys = admitKeys(q, first, 'k');
    expect(await admit(client, q, first, 'k', 'p')).toEqual([1, first]);
    await client.del(keys.row);
    await client.zrem(keys.pending, first);
    const reply = await expectUnchanged(client, () =>
      admit(client, q, second, 'k', 'other payload'),
    );
    expect(reply).toEqual([0, first]);
    expect(await client.exists(keys.row, admitKeys(q, second, 'k').row, keys.pending)).toBe(0);
  });

  it('-1: the same key with another payload names the first id and writes nothing', async () => {
    const q = randomQueue('mismatch');
    const [first, second] = [jobId(7), jobId(8)];
    expect(await admit(client, q, first, 'k', 'one')).toEqual([1, first]);
    const reply = await expectUnchanged(client, () => admit(client, q, second, 'k', 'two'));
    expect(reply).toEqual([-1, first]);
    // Bytes, not text: a payload differing only after a NUL is another payload.
    const q2 = randomQueue('mismatch');
    expect(await admit(client, q2, first, 'k', Buffer.from('a\0b'))).toEqual([1, first]);
    expect(await admit(client, q2, second, 'k', Buffer.from('a\0c'))).toEqual([-1, first]);
  });

  it('-1: a recorded row that lost its payload field counts as another payload', async () => {
    const q = randomQueue('nofield');
    const id = jobId(9);
    expect(await admit(client, q, id, 'k', 'p')).toEqual([1, id]);
    await client.hdel(admitKeys(q, id, 'k').row, 'payload');
    expect(await admit(client, q, jobId(10), 'k', 'p')).toEqual([-1, id]);
  });

  it('2: a new key whose proposed row belongs to another request; the next proposal lands', async () => {
    const q = randomQueue('taken');
    const [taken, fresh] = [jobId(11), jobId(12)];
    expect(await admit(client, q, taken, 'other key', 'theirs')).toEqual([1, taken]);
    const reply = await expectUnchanged(client, () => admit(client, q, taken, 'my key', 'mine'));
    expect(reply).toEqual([2, taken]);
    expect(await admit(client, q, fresh, 'my key', 'mine')).toEqual([1, fresh]);
    expect(await client.hget(admitKeys(q, taken, 'x').row, 'payload')).toBe('theirs');
    expect(await client.get(admitKeys(q, fresh, 'my key').dedupe)).toBe(fresh);
  });

  it('runs twice safely: a resend of the same call answers 0 with the same id', async () => {
    const q = randomQueue('resend');
    const id = jobId(13);
    expect(await admit(client, q, id, 'k', 'p')).toEqual([1, id]);
    expect(await admit(client, q, id, 'k', 'p')).toEqual([0, id]);
    expect(await client.zcard(admitKeys(q, id, 'k').pending)).toBe(1);
  });

  it('registers like EMQ.ENQUEUE: keys 2..4 step 1, write deny-oom fast', async () => {
    const [info] = (await client.call('COMMAND', 'INFO', 'emq.admit')) as unknown[][];
    expect(info?.slice(0, 6)).toEqual([
      'emq.admit',
      -1,
      ['write', 'denyoom', 'module', 'fast'],
      2,
      4,
      1,
    ]);
    const [enqueueInfo] = (await client.call('COMMAND', 'INFO', 'emq.enqueue')) as unknown[][];
    expect(enqueueInfo?.slice(0, 6)).toEqual([
      'emq.enqueue',
      -1,
      ['write', 'denyoom', 'module', 'fast'],
      2,
      3,
      1,
    ]);
  });
});
