// EMQ.ADMIT (docs/wire.md "admit"): n admissions of one queue per call, each judged as if
// alone and in order; the row at birth, the pending entry, the record in its slot; the statuses
// 1, 0, -1, 2 and a caller id's row compare; admissions of one call seeing each other; records
// expiring. The slots, the v2 form and what observers see are admit-slots.test.ts; the
// families' equivalence is families.test.ts; refusals are refusals*.test.ts.
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomQueue, type ServerHandle, startStandalone } from '../../test/support/servers.js';
import { waitFor } from '../../test/support/wait.js';
import {
  admit,
  admitKeys,
  admitMany,
  expectUnchanged,
  jobId,
  payloadDigest,
  recordHash,
  recordOf,
  serverMs,
  slotKeys,
} from './helpers.js';

let server: ServerHandle;
let client: Valkey;

beforeAll(async () => {
  server = await startStandalone({ module: true });
  client = await server.client();
  await client.call('EMQ.WIRE.INSTALL');
});
afterAll(() => server.stop());

const EVERY_BYTE = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

describe('EMQ.ADMIT: one admission', () => {
  it('1: the row (three fields, in order), the pending entry, the record in its slot; no TTL', async () => {
    const q = randomQueue('new');
    const id = jobId(1);
    const keys = admitKeys(q, id);
    const before = await serverMs(client);
    expect(await admit(client, q, id, 'k1', EVERY_BYTE, 90_000)).toEqual([1, id]);
    const after = await serverMs(client);

    // A payload over 64 bytes makes a hashtable (fields in any order); the order of a small
    // row's listpack is the HSET's own.
    const row = (await client.callBuffer('HGETALL', keys.row)) as Buffer[];
    const fields = new Map<string, Buffer>();
    for (let i = 0; i < row.length; i += 2) fields.set(String(row[i]), row[i + 1] as Buffer);
    expect(Object.fromEntries(fields)).toEqual({
      state: Buffer.from('pending'),
      attempts: Buffer.from('0'),
      payload: EVERY_BYTE,
    });
    expect(await client.object('ENCODING', keys.row)).toBe('hashtable');
    expect(await admit(client, q, jobId(20), 'small', 'p', 90_000)).toEqual([1, jobId(20)]);
    expect(await client.call('HGETALL', admitKeys(q, jobId(20)).row)).toEqual([
      'state',
      'pending',
      'attempts',
      '0',
      'payload',
      'p',
    ]);
    expect(await client.zrange(keys.pending, 0, -1, 'WITHSCORES')).toEqual([
      id,
      '0',
      jobId(20),
      '0',
    ]);

    const record = await recordOf(client, q, 'k1');
    const [recorded, digest, expiry] = String(record?.value).split(':');
    expect([recorded, digest]).toEqual([id, payloadDigest(EVERY_BYTE)]);
    expect(Number(expiry)).toBeGreaterThanOrEqual(before + 90_000);
    expect(Number(expiry)).toBeLessThanOrEqual(after + 90_000);
    // W = ceil(ttl / 2); slot = floor(expiry / W) mod 4; `~` holds the latest expiry.
    expect(record?.slot).toBe(Math.floor(Number(expiry) / 45_000) % 4);
    const slot = slotKeys(q)[record?.slot ?? 0] as string;
    const small = await recordOf(client, q, 'small');
    if (small?.slot === record?.slot) {
      expect(await client.hkeys(slot)).toEqual([
        recordHash('k1').slice(0, 22),
        '~',
        recordHash('small').slice(0, 22),
      ]);
    }
    const smallExpiry = String(small?.value).split(':')[2];
    expect(await client.hget(slot, '~')).toBe(small?.slot === record?.slot ? smallExpiry : expiry);
    for (const key of [keys.row, keys.pending, slot]) expect(await client.pttl(key)).toBe(-1);
  });

  it('1: an empty payload is a payload; an odd ttl rounds the window up', async () => {
    const q = randomQueue('empty');
    const id = jobId(2);
    expect(await admit(client, q, id, 'k', '', 3)).toEqual([1, id]);
    expect(await client.hget(admitKeys(q, id).row, 'payload')).toBe('');
    const record = await recordOf(client, q, 'k');
    const expiry = Number(String(record?.value).split(':')[2]);
    expect(record?.slot).toBe(Math.floor(expiry / 2) % 4); // W = ceil(3 / 2) = 2
  });

  it('0: a replay with the same digest names the first id; the touch leaves every key as it was', async () => {
    const q = randomQueue('replay');
    const [first, second] = [jobId(3), jobId(4)];
    expect(await admit(client, q, first, 'k', EVERY_BYTE)).toEqual([1, first]);
    const reply = await expectUnchanged(client, () => admit(client, q, second, 'k', EVERY_BYTE));
    expect(reply).toEqual([0, first]);
    expect(await client.exists(admitKeys(q, second).row)).toBe(0);
  });

  it('0: a consumed job is not re-created, and is judged by the digest alone', async () => {
    const q = randomQueue('consumed');
    const [first, second] = [jobId(5), jobId(6)];
    const keys = admitKeys(q, first);
    expect(await admit(client, q, first, 'k', 'p')).toEqual([1, first]);
    await client.del(keys.row);
    await client.zrem(keys.pending, first);
    expect(await expectUnchanged(client, () => admit(client, q, second, 'k', 'p'))).toEqual([
      0,
      first,
    ]);
    expect(await expectUnchanged(client, () => admit(client, q, second, 'k', 'other'))).toEqual([
      -1,
      first,
    ]);
    expect(await client.exists(keys.row, admitKeys(q, second).row, keys.pending)).toBe(0);
  });

  it('-1: another digest names the first id and writes nothing, even when the row holds it', async () => {
    const q = randomQueue('mismatch');
    const [first, second] = [jobId(7), jobId(8)];
    expect(await admit(client, q, first, 'k', 'one')).toEqual([1, first]);
    expect(await expectUnchanged(client, () => admit(client, q, second, 'k', 'two'))).toEqual([
      -1,
      first,
    ]);
    // The digest decides, not the row: the same payload under a forged digest is another body.
    const forged = { id: second, key: 'k', payload: 'one', digest: 'AAAAAAAAAAAAAAAA' };
    expect(await admitMany(client, q, [forged])).toEqual([[-1, first]]);
  });

  it('2: a new key whose proposed row exists (minted): nothing written; the next proposal lands', async () => {
    const q = randomQueue('taken');
    const [taken, fresh] = [jobId(11), jobId(12)];
    expect(await admit(client, q, taken, 'other key', 'theirs')).toEqual([1, taken]);
    expect(await expectUnchanged(client, () => admit(client, q, taken, 'my key', 'mine'))).toEqual([
      2,
      taken,
    ]);
    expect(await admit(client, q, fresh, 'my key', 'mine')).toEqual([1, fresh]);
    expect(await client.hget(admitKeys(q, taken).row, 'payload')).toBe('theirs');
  });

  it("2 for a caller id: the row's payload decides, 0 recording the key or -1 writing nothing", async () => {
    const q = randomQueue('caller');
    const id = jobId(13);
    // A row written without a record (another host, or before records existed).
    expect(
      await client.call('EMQ.ENQUEUE', '2', `emq:{${q}}:job:${id}`, `emq:{${q}}:pending`, id, 'p'),
    ).toBe(1);
    const other = await expectUnchanged(client, () =>
      admitMany(client, q, [{ kind: 'c', id, key: `id:${id}`, payload: 'not p' }]),
    );
    expect(other).toEqual([[-1, id]]);
    expect(await recordOf(client, q, `id:${id}`)).toBeUndefined();
    expect(await admitMany(client, q, [{ kind: 'c', id, key: `id:${id}`, payload: 'p' }])).toEqual([
      [0, id],
    ]);
    expect((await recordOf(client, q, `id:${id}`))?.value).toMatch(
      new RegExp(`^${id}:${payloadDigest('p')}:\\d+$`),
    );
    expect(await client.zrange(`emq:{${q}}:pending`, 0, -1)).toEqual([id]);
  });

  it('runs twice safely: a resend of the same call answers 0 with the same id', async () => {
    const q = randomQueue('resend');
    const id = jobId(14);
    expect(await admit(client, q, id, 'k', 'p')).toEqual([1, id]);
    expect(await admit(client, q, id, 'k', 'p')).toEqual([0, id]);
    expect(await client.zcard(admitKeys(q, id).pending)).toBe(1);
  });

  it('an expired record counts as absent: the key admits anew (waiting on the server clock)', async () => {
    const q = randomQueue('expired');
    expect(await admit(client, q, jobId(15), 'k', 'p', 50)).toEqual([1, jobId(15)]);
    const expiry = Number(String((await recordOf(client, q, 'k'))?.value).split(':')[2]);
    await waitFor('the record to be past its expiry', 30_000, async () =>
      (await serverMs(client)) > expiry ? undefined : 'not yet',
    );
    expect(await admit(client, q, jobId(16), 'k', 'p', 50)).toEqual([1, jobId(16)]);
  });
});

describe('EMQ.ADMIT: several admissions in one call', () => {
  it('answers each in order; one ZADD holds every new member, one slot holds every record', async () => {
    const q = randomQueue('many');
    const admissions = [1, 2, 3].map((n) => ({
      id: jobId(100 + n),
      key: `k${n}`,
      payload: `p${n}`,
    }));
    expect(await admitMany(client, q, admissions)).toEqual(admissions.map((a) => [1, a.id]));
    expect(await client.zrange(`emq:{${q}}:pending`, 0, -1)).toEqual(admissions.map((a) => a.id));
    const slots = await Promise.all(slotKeys(q).map((k) => client.hkeys(k)));
    const full = slots.filter((fields) => fields.length > 0);
    expect(full).toEqual([[...admissions.map((a) => recordHash(a.key).slice(0, 22)), '~']]);
  });

  it('an admission sees the ones before it: the same key twice, the same id twice', async () => {
    const q = randomQueue('same');
    const [a, b, c] = [jobId(201), jobId(202), jobId(203)];
    expect(
      await admitMany(client, q, [
        { id: a, key: 'k', payload: 'p' },
        { id: b, key: 'k', payload: 'p' }, // sees the first's record: 0, a
        { id: c, key: 'k', payload: 'q' }, // another digest: -1, a
        { id: a, key: 'k2', payload: 'p' }, // a's row is this call's: 2
        { kind: 'c', id: a, key: 'k3', payload: 'p' }, // a caller id: a's row holds p: 0, recorded
        { kind: 'c', id: a, key: 'k4', payload: 'x' }, // another payload: -1
      ]),
    ).toEqual([
      [1, a],
      [0, a],
      [-1, a],
      [2, a],
      [0, a],
      [-1, a],
    ]);
    expect(await client.zrange(`emq:{${q}}:pending`, 0, -1)).toEqual([a]);
    expect((await recordOf(client, q, 'k3'))?.value).toMatch(new RegExp(`^${a}:`));
    expect(await recordOf(client, q, 'k4')).toBeUndefined();
  });

  it('EMQKIND and WRONGTYPE are elements of the reply; the other admissions go on', async () => {
    const q = randomQueue('elements');
    const reply = (await admitMany(client, q, [
      { id: 'XOB1', key: 'k1', payload: 'p' },
      { id: jobId(301), key: 'k2', payload: 'p' },
    ])) as unknown[];
    expect(String(reply[0])).toMatch(/^ReplyError: EMQKIND job id must be JOB-namespaced$/);
    expect(reply[1]).toEqual([1, jobId(301)]);

    // A caller's id whose row is not a hash: WRONGTYPE for its admission only.
    await client.set(admitKeys(q, jobId(302)).row, 'x');
    const second = (await admitMany(client, q, [
      { id: jobId(302), key: 'k3', payload: 'p', kind: 'c' },
      { id: jobId(303), key: 'k4', payload: 'p' },
      { id: jobId(304), key: 'k2', payload: 'p' },
    ])) as unknown[];
    expect(String(second[0])).toMatch(/^ReplyError: WRONGTYPE /);
    expect(second.slice(1)).toEqual([
      [1, jobId(303)],
      [0, jobId(301)],
    ]);
  });

  it('a pending key of another type refuses only the admissions that would write a row', async () => {
    const q = randomQueue('pending');
    expect(await admit(client, q, jobId(401), 'k1', 'p')).toEqual([1, jobId(401)]);
    await client.del(`emq:{${q}}:pending`);
    await client.set(`emq:{${q}}:pending`, 'not a zset');
    const reply = (await expectUnchanged(client, () =>
      admitMany(client, q, [
        { id: jobId(402), key: 'k2', payload: 'p' },
        { id: jobId(403), key: 'k1', payload: 'p' },
      ]),
    )) as unknown[];
    expect(String(reply[0])).toMatch(/^ReplyError: WRONGTYPE /);
    // 0 and a touch would rewrite the record; with a refusal written nothing else, so it does.
    expect(reply[1]).toEqual([0, jobId(401)]);
  });

  it('a slot that is not a hash: every admission answers WRONGTYPE, nothing is written', async () => {
    const q = randomQueue('slot');
    await client.set(slotKeys(q)[2] as string, 'not a hash');
    const reply = (await expectUnchanged(client, () =>
      admitMany(client, q, [
        { id: 'XOB1', key: 'k1', payload: 'p' },
        { id: jobId(501), key: 'k2', payload: 'p' },
      ]),
    )) as unknown[];
    expect(reply.map(String)).toEqual([
      expect.stringMatching(/^ReplyError: WRONGTYPE /),
      expect.stringMatching(/^ReplyError: WRONGTYPE /),
    ]);
  });
});
