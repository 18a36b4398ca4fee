// The refusal order of the v2 form of EMQ.ADMIT and of EMQ.ENQUEUE (SPEC §4) on a real server.
// Each case breaks its step AND every later one, so the expected refusal proves the step runs
// first; each leaves the dataset byte-for-byte as it was (DEBUG DIGEST, DUMP and expiry).
import { describe, expect, it } from 'vitest';
import { randomQueue } from '../../test/support/servers.js';
import { admitKeys, dedupeHash, expectUnchanged, jobId } from './helpers.js';
import {
  breakFence,
  client,
  KIND,
  LAYOUT,
  laterStepsBroken,
  PAUSED,
  refused,
  SHAPE,
  TTL,
  useRefusalServer,
  v2Args,
  WIRE,
  WRONGTYPE,
  whilePaused,
} from './refusal-helpers.js';

useRefusalServer();

describe('EMQ.ADMIT in the v2 form refuses, in order, with nothing written', () => {
  it('1 shape: a wrong key count or argument count, before the layout is looked at', async () => {
    const q = randomQueue('shape');
    const args = v2Args(q, 'XOB1', 'k');
    expect(await refused(['EMQ.ADMIT', '2', ...args.slice(2)])).toMatch(SHAPE);
    expect(await refused(args.slice(0, 7))).toMatch(SHAPE);
    expect(await refused([...args, 'extra'])).toMatch(SHAPE);
    expect(await refused(['EMQ.ADMIT', '3', 'a', 'b', 'c', 'XOB1', 'p', '1'].slice(0, 5))).toMatch(
      SHAPE,
    );
  });

  it('2 layout comes before a bad ttl-ms; a bad ttl-ms before the fence (as the function family)', async () => {
    const bad = v2Args(randomQueue('ttl'), 'XOB1', 'k', '0');
    bad[2] = 'not-a-row';
    expect(await refused(bad)).toMatch(LAYOUT);
    await breakFence('missing');
    for (const ttl of ['0', '-5', '1.5', 'x', '', '01', '+5', ' 5', '1000000000000000']) {
      const args = v2Args(randomQueue('ttl'), 'XOB1', 'k', ttl);
      expect(await refused(args), `ttl ${JSON.stringify(ttl)}`).toMatch(TTL);
    }
  });

  it('2 layout: keys not of one queue or not shaped, before the fence and the kind', async () => {
    await breakFence('missing');
    const q = randomQueue('layout');
    const other = randomQueue('other');
    const id = 'XOB1';
    const good = admitKeys(q, id, 'k');
    const h = dedupeHash('k');
    const cases: Array<[string, Partial<Record<'row' | 'pending' | 'dedupe', string>>]> = [
      ['dedupe of another queue', { dedupe: `emq:{${other}}:dedupe:${h}` }],
      ['pending of another queue', { pending: `emq:{${other}}:pending` }],
      ['row of another id', { row: `emq:{${q}}:job:XOB2` }],
      ['a 42-character hash', { dedupe: `emq:{${q}}:dedupe:${h.slice(1)}` }],
      ['a 44-character hash', { dedupe: `emq:{${q}}:dedupe:${h}A` }],
      ['a base64 (not url) character', { dedupe: `emq:{${q}}:dedupe:+${h.slice(1)}` }],
      ['padding', { dedupe: `emq:{${q}}:dedupe:${h.slice(1)}=` }],
      ['no emq: prefix', { dedupe: `emx:{${q}}:dedupe:${h}` }],
      ['dedupe in the row position', { row: good.dedupe, dedupe: good.row }],
      [
        'a brace inside the queue',
        {
          pending: `emq:{a{b}:pending`,
          row: `emq:{a{b}:job:${id}`,
          dedupe: `emq:{a{b}:dedupe:${h}`,
        },
      ],
      [
        'an empty queue',
        { pending: 'emq:{}:pending', row: `emq:{}:job:${id}`, dedupe: `emq:{}:dedupe:${h}` },
      ],
    ];
    for (const [what, change] of cases) {
      const keys = { ...good, ...change };
      const args = ['EMQ.ADMIT', '3', keys.row, keys.pending, keys.dedupe, id, 'p', '60000'];
      expect(await refused(args), what).toMatch(LAYOUT);
    }
  });

  it('3 fence: missing, another value, a TTL, not a string; before the kind and the record', async () => {
    for (const how of ['missing', 'other', 'ttl', 'hash'] as const) {
      const q = randomQueue('fence');
      await laterStepsBroken(q, 'XOB1', 'k');
      await breakFence(how);
      expect(await refused(v2Args(q, 'XOB1', 'k')), how).toMatch(WIRE);
    }
  });

  it('4 kind: an id without the JOB prefix, before the record is read', async () => {
    const q = randomQueue('kind');
    await laterStepsBroken(q, 'JO', 'k');
    expect(await refused(v2Args(q, 'JO', 'k'), true)).toMatch(KIND);
  });

  it('5 record/exists: a recorded key with another payload answers -1 before type and pause', async () => {
    const q = randomQueue('mismatch');
    const id = jobId(1);
    await laterStepsBroken(q, id, 'k');
    const reply = await expectUnchanged(client, () => whilePaused(v2Args(q, id, 'k')));
    expect(reply).toEqual([-1, id]);
  });

  it('5 record/exists: a new key whose proposed row exists answers 2 before type and pause', async () => {
    const q = randomQueue('taken');
    const id = jobId(2);
    const keys = admitKeys(q, id, 'k');
    await client.set(keys.pending, 'not a zset');
    await client.set(keys.row, 'any type counts');
    const reply = await expectUnchanged(client, () => whilePaused(v2Args(q, id, 'k')));
    expect(reply).toEqual([2, id]);
  });

  it('6 type: record not a string, pending not a zset, recorded row not a hash; before the pause', async () => {
    const id = jobId(3);
    const q1 = randomQueue('type');
    await client.hset(admitKeys(q1, id, 'k').dedupe, 'id', id);
    expect(await refused(v2Args(q1, id, 'k'), true)).toMatch(WRONGTYPE);

    const q2 = randomQueue('type');
    await client.sadd(admitKeys(q2, id, 'k').pending, id);
    expect(await refused(v2Args(q2, id, 'k'), true)).toMatch(WRONGTYPE);

    const q3 = randomQueue('type');
    await client.set(admitKeys(q3, id, 'k').dedupe, id, 'PX', 600_000);
    await client.set(admitKeys(q3, id, 'k').row, 'a string row');
    expect(await refused(v2Args(q3, id, 'k'), true)).toMatch(WRONGTYPE);
  });

  it('7 paused: a new key and a known key (whose touch is a write) under CLIENT PAUSE WRITE', async () => {
    const q = randomQueue('paused');
    const id = jobId(4);
    expect(await refused(v2Args(q, id, 'k'), true)).toMatch(PAUSED);
    expect(await client.call(...(v2Args(q, id, 'k') as [string, ...string[]]))).toEqual([1, id]);
    expect(await refused(v2Args(q, jobId(5), 'k'), true)).toMatch(PAUSED);
  });
});

describe('EMQ.ENQUEUE refuses, in order, with nothing written', () => {
  function enqueueArgs(queue: string, id: string): string[] {
    return ['EMQ.ENQUEUE', '2', `emq:{${queue}}:job:${id}`, `emq:{${queue}}:pending`, id, 'p'];
  }

  it('1 shape', async () => {
    const args = enqueueArgs(randomQueue('shape'), 'XOB1');
    expect(await refused(['EMQ.ENQUEUE', '3', ...args.slice(2)])).toMatch(SHAPE);
    expect(await refused(args.slice(0, 5))).toMatch(SHAPE);
    expect(await refused([...args, 'extra'])).toMatch(SHAPE);
  });

  it('2 layout, before the fence and the kind', async () => {
    await breakFence('missing');
    const [q, other] = [randomQueue('layout'), randomQueue('other')];
    const cases = [
      ['EMQ.ENQUEUE', '2', `emq:{${q}}:job:XOB1`, `emq:{${other}}:pending`, 'XOB1', 'p'],
      ['EMQ.ENQUEUE', '2', `emq:{${q}}:job:XOB2`, `emq:{${q}}:pending`, 'XOB1', 'p'],
      ['EMQ.ENQUEUE', '2', `emq:{${q}}:pending`, `emq:{${q}}:job:XOB1`, 'XOB1', 'p'],
    ];
    for (const args of cases) expect(await refused(args)).toMatch(LAYOUT);
  });

  it('3 fence, before the kind', async () => {
    for (const how of ['missing', 'other', 'ttl', 'hash'] as const) {
      await breakFence(how);
      expect(await refused(enqueueArgs(randomQueue('fence'), 'XOB1')), how).toMatch(WIRE);
    }
  });

  it('4 kind, before the row is looked at', async () => {
    const q = randomQueue('kind');
    await client.hset(`emq:{${q}}:job:JO`, 'state', 'pending');
    expect(await refused(enqueueArgs(q, 'JO'), true)).toMatch(KIND);
  });

  it('5 exists answers 0 before type and pause; 6 type before the pause; 7 paused', async () => {
    const q = randomQueue('order');
    const id = jobId(6);
    await client.set(`emq:{${q}}:pending`, 'not a zset');
    await client.hset(`emq:{${q}}:job:${id}`, 'state', 'pending');
    expect(await expectUnchanged(client, () => whilePaused(enqueueArgs(q, id)))).toBe(0);
    expect(await refused(enqueueArgs(q, jobId(7)), true)).toMatch(WRONGTYPE);
    expect(await refused(enqueueArgs(randomQueue('p'), jobId(8)), true)).toMatch(PAUSED);
  });
});
