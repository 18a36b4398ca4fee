// The refusal tables of docs/wire.md (v3 EMQ.ADMIT), the v2 form's and EMQ.ENQUEUE's on a real
// server. Each case breaks its step AND every later one, so the expected refusal proves the step
// runs first; each leaves the dataset byte-for-byte as it was (DEBUG DIGEST, and the DUMP and
// expiry of every key).
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { randomQueue, type ServerHandle, startStandalone } from '../../test/support/servers.js';
import { waitFor } from '../../test/support/wait.js';
import {
  type Admission,
  admitArgs,
  admitKeys,
  dedupeHash,
  expectUnchanged,
  jobId,
  payloadDigest,
  refusalOf,
  serverMs,
  slotKeys,
} from './helpers.js';

let server: ServerHandle;
let client: Valkey;

beforeAll(async () => {
  server = await startStandalone({ module: true });
  client = await server.client();
});
afterAll(() => server.stop());
beforeEach(async () => {
  await client.call('EMQ.WIRE.INSTALL');
});

const SHAPE = /^ERR wrong number of arguments/;
const TTL =
  /^ERR wrong number of arguments for 'emq\.admit' command: ttl-ms must be a positive integer$/;
const LAYOUT = /^EMQLAYOUT /;
const WIRE = /^EMQWIRE /;
const KIND = /^EMQKIND job id must be JOB-namespaced$/;
const WRONGTYPE = /^WRONGTYPE /;
const PAUSED = /^ERR EMQ write-paused$/;
const WRONGTYPE_ELEMENT = /^ReplyError: WRONGTYPE /;

/** Runs `args` inside `MULTI; CLIENT PAUSE 3000 WRITE; ...; EXEC` (SPEC §10), then unpauses. */
async function whilePaused(args: readonly (string | Buffer)[]): Promise<unknown> {
  const [name = '', ...rest] = args;
  try {
    const replies = await client
      .multi()
      .call('CLIENT', 'PAUSE', '3000', 'WRITE')
      .call(String(name), ...rest)
      .exec();
    const [error, reply] = replies?.[1] ?? [new Error('EXEC answered nothing'), undefined];
    if (error) throw error;
    return reply;
  } finally {
    await client.call('CLIENT', 'UNPAUSE');
  }
}

/** A fence in a broken state for the duration of one refusal (restored by beforeEach). */
async function breakFence(how: 'missing' | 'other' | 'ttl' | 'hash'): Promise<void> {
  await client.del('{emq}:version');
  if (how === 'other') await client.set('{emq}:version', '2');
  if (how === 'ttl') await client.set('{emq}:version', '1', 'PX', 600_000);
  if (how === 'hash') await client.hset('{emq}:version', 'v', '1');
}

/** State that breaks steps 5-7 at once: a record and a row, pending of the wrong type. */
async function laterStepsBroken(queue: string, id: string, key: string): Promise<void> {
  const keys = admitKeys(queue, id, key);
  await client.set(keys.pending, 'not a zset');
  await client.set(keys.dedupe, id, 'PX', 600_000);
  await client.hset(keys.row, 'state', 'pending', 'attempts', '0', 'payload', 'other');
}

function v2Args(queue: string, id: string, key: string, ttl = '60000'): string[] {
  const keys = admitKeys(queue, id, key);
  return ['EMQ.ADMIT', '3', keys.row, keys.pending, keys.dedupe, id, 'p', ttl];
}

async function refused(args: readonly (string | Buffer)[], paused = false): Promise<string> {
  const [name = '', ...rest] = args;
  return expectUnchanged(client, () =>
    refusalOf(paused ? whilePaused(args) : client.call(String(name), ...rest)),
  );
}

/** The reply of a call that answers (no call-level refusal), with the dataset unchanged. */
async function unchanged(args: readonly (string | Buffer)[], paused = false): Promise<unknown[]> {
  const [name = '', ...rest] = args;
  return (await expectUnchanged(client, () =>
    paused ? whilePaused(args) : client.call(String(name), ...rest),
  )) as unknown[];
}

function v3(queue: string, admissions: readonly Admission[], wire = '1', ttl = '60000') {
  return ['EMQ.ADMIT', ...admitArgs(queue, admissions, { wire, ttlMs: ttl })];
}

const one = (id: string, key = 'k', more: Partial<Admission> = {}): Admission => ({
  id,
  key,
  payload: 'p',
  ...more,
});

describe('EMQ.ADMIT (v3) refuses, in order, with nothing written', () => {
  it('1 shape: key count and argument count, before anything else is looked at', async () => {
    const q = randomQueue('shape');
    await breakFence('missing');
    const args = v3(q, [one('XOB1'), one('XOB2', 'k2')]);
    const counts = [
      ['EMQ.ADMIT'], // no key count
      ['EMQ.ADMIT', 'x', ...args.slice(2)], // not a number
      ['EMQ.ADMIT', '-1', ...args.slice(2)],
      ['EMQ.ADMIT', '100', ...args.slice(2)], // more keys than arguments
      ['EMQ.ADMIT', '5', ...args.slice(2)], // no admission
      ['EMQ.ADMIT', '8', ...args.slice(2)], // 5 + 2n with a half admission
      args.slice(0, -1), // one argument short
      [...args, 'extra'],
      ['EMQ.ADMIT', '0'],
    ];
    for (const bad of counts) expect(await refused(bad), bad.slice(0, 2).join(' ')).toMatch(SHAPE);
  });

  it('1 shape: wire, ttl-ms, each kind and digest malformed, before the layout', async () => {
    await breakFence('missing');
    const q = randomQueue('shape');
    const broken = (args: (string | Buffer)[]) => {
      args[2] = 'not-a-pending-key'; // the layout is broken too
      return args;
    };
    for (const wire of ['', 'has space', 'x'.repeat(65), 'caf\u00e9']) {
      expect(await refused(broken(v3(q, [one('XOB1')], wire))), `wire ${wire}`).toMatch(
        /^ERR wrong number of arguments for 'emq\.admit' command: wire must be 1 to 64 printable/,
      );
    }
    for (const ttl of ['0', '-5', '1.5', 'x', '', '01', '+5', ' 5', '1000000000000000']) {
      expect(await refused(broken(v3(q, [one('XOB1')], '1', ttl))), `ttl ${ttl}`).toMatch(
        /^ERR wrong number of arguments for 'emq\.admit' command: ttl-ms must be a positive integer$/,
      );
    }
    for (const kind of ['', 'M', 'mm', 'x']) {
      expect(await refused(broken(v3(q, [one('XOB1'), one('XOB2', 'k2', { kind })])))).toMatch(
        /: kind must be m or c$/,
      );
    }
    for (const digest of ['', 'A'.repeat(15), 'A'.repeat(17), `${'A'.repeat(15)}+`]) {
      expect(await refused(broken(v3(q, [one('XOB1', 'k', { digest })])))).toMatch(
        /: digest must be 16 base64url characters$/,
      );
    }
  });

  it("2 layout: keys not one queue's, before the fence and the kind", async () => {
    await breakFence('missing');
    const q = randomQueue('layout');
    const other = randomQueue('other');
    const h = dedupeHash('k');
    const cases: Array<[string, number, string]> = [
      ['pending of another shape', 2, `emq:{${q}}:pend`],
      ['a brace in the queue', 2, 'emq:{a{b}:pending'],
      ['an empty queue', 2, 'emq:{}:pending'],
      ['slot 0 of another queue', 3, `emq:{${other}}:dedupe:0`],
      ['slots out of order', 4, `emq:{${q}}:dedupe:2`],
      ['slot 4', 6, `emq:{${q}}:dedupe:4`],
      ['row of another id', 7, `emq:{${q}}:job:XOB2`],
      ['row of another queue', 7, `emq:{${other}}:job:XOB1`],
      ['a 42-character h', 8, `emq:{${q}}:dedupe:${h.slice(1)}`],
      ['a 44-character h', 8, `emq:{${q}}:dedupe:${h}A`],
      ['a base64 (not url) character', 8, `emq:{${q}}:dedupe:+${h.slice(1)}`],
      ['record of another queue', 8, `emq:{${other}}:dedupe:${h}`],
      ['row and record swapped', 7, `emq:{${q}}:dedupe:${h}`],
    ];
    for (const [what, position, key] of cases) {
      const args = v3(q, [one('XOB1')]);
      args[position] = key;
      expect(await refused(args), what).toMatch(
        /^EMQLAYOUT keys must be one queue's emq:\{q\}:pending, emq:\{q\}:dedupe:0 to 3, then/,
      );
    }
  });

  it("3 fence: this node's copy missing, another value, with a TTL, not a string; the host's wire", async () => {
    for (const how of ['missing', 'other', 'ttl', 'hash'] as const) {
      const q = randomQueue('fence');
      await laterStepsBroken(q, 'XOB1', 'k');
      await breakFence(how);
      expect(await refused(v3(q, [one('XOB1')])), how).toMatch(WIRE);
    }
    await client.call('EMQ.WIRE.INSTALL');
    const q = randomQueue('fence');
    await laterStepsBroken(q, 'XOB1', 'k');
    expect(await refused(v3(q, [one('XOB1')], '2'))).toMatch(
      /^EMQWIRE wire identity mismatch: module has '1', host expects '2'$/,
    );
  });

  it('4 kind: EMQKIND for that admission, before its record is read; the others answer', async () => {
    const q = randomQueue('kind');
    await laterStepsBroken(q, 'JO', 'k');
    const reply = await unchanged(v3(q, [one('JO'), one('XOB1', 'k2')]), true);
    expect(reply.map(String)).toEqual([
      'ReplyError: EMQKIND job id must be JOB-namespaced',
      'ReplyError: EMQKIND job id must be JOB-namespaced',
    ]);
  });

  it('5 record/exists: -1 and 2 answer before the type check and the pause, writing nothing', async () => {
    const q = randomQueue('exists');
    const id = jobId(1);
    await client.hset(
      slotKeys(q)[0] as string,
      dedupeHash('k').slice(0, 22),
      `${id}:${payloadDigest('other')}:99999999999999`,
      '~',
      '99999999999999',
    );
    await client.set(`emq:{${q}}:pending`, 'not a zset');
    await client.set(`emq:{${q}}:job:${jobId(2)}`, 'a row of any type');
    expect(await unchanged(v3(q, [one(jobId(3)), one(jobId(2), 'k2')]), true)).toEqual([
      [-1, id],
      [2, jobId(2)],
    ]);
  });

  it('6 type: WRONGTYPE per admission (pending, v2 record, recorded row), before the pause', async () => {
    const q = randomQueue('type');
    await client.set(`emq:{${q}}:pending`, 'not a zset');
    await client.hset(admitKeys(q, 'x', 'k2').dedupe, 'f', 'v');
    await client.set(admitKeys(q, 'x', 'k3').dedupe, jobId(9), 'PX', 600_000);
    await client.set(`emq:{${q}}:job:${jobId(9)}`, 'a string row');
    const reply = await unchanged(
      v3(q, [one(jobId(1)), one(jobId(2), 'k2'), one(jobId(3), 'k3')]),
      true,
    );
    expect(reply.map(String)).toEqual([
      expect.stringMatching(WRONGTYPE_ELEMENT),
      expect.stringMatching(WRONGTYPE_ELEMENT),
      expect.stringMatching(WRONGTYPE_ELEMENT),
    ]);
    // A slot that is not a hash: every admission, whatever else it is.
    const q2 = randomQueue('type');
    await client.set(slotKeys(q2)[1] as string, 'x');
    const all = await unchanged(v3(q2, [one('XOB1'), one(jobId(4), 'k4')]), true);
    expect(all.map(String)).toEqual([
      expect.stringMatching(WRONGTYPE_ELEMENT),
      expect.stringMatching(WRONGTYPE_ELEMENT),
    ]);
  });

  it('7 paused: a call that would write refuses whole, a touch and a dead-slot unlink included', async () => {
    const q = randomQueue('paused');
    const id = jobId(5);
    // A new key beside a -1: the whole call is refused, the -1 included.
    await client.hset(
      slotKeys(q)[0] as string,
      dedupeHash('old').slice(0, 22),
      `${jobId(6)}:${payloadDigest('x')}:99999999999999`,
      '~',
      '99999999999999',
    );
    expect(await refused(v3(q, [one(jobId(7), 'old'), one(id)]), true)).toMatch(PAUSED);
    expect(await client.call(...(v3(q, [one(id)]) as [string, ...string[]]))).toEqual([[1, id]]);
    // Only a touch (0): refused too, so that a WAIT never passes without it.
    expect(await refused(v3(q, [one(jobId(8))]), true)).toMatch(PAUSED);
    // Only the unlink of a dead slot: the one after the live ones is dead, a -1 answer writes
    // nothing else. Which slot that is follows the clock: W = 30 s for a 60 s record life.
    const q2 = randomQueue('paused');
    let now = 0;
    await waitFor('the clock to leave a window boundary', 10_000, async () => {
      now = await serverMs(client);
      return now % 30_000 > 2_000 && 30_000 - (now % 30_000) > 2_000 ? undefined : 'near one';
    });
    const after = (Math.floor(now / 30_000) + 3) % 4;
    await client.hset(slotKeys(q2)[after] as string, 'f', 'v', '~', '5');
    const live = slotKeys(q2)[(after + 1) % 4] as string;
    await client.hset(
      live,
      dedupeHash('old').slice(0, 22),
      `${jobId(6)}:${payloadDigest('x')}:99999999999999`,
      '~',
      '99999999999999',
    );
    expect(await refused(v3(q2, [one(jobId(9), 'old')]), true)).toMatch(PAUSED);
    expect(await client.call(...(v3(q2, [one(jobId(9), 'old')]) as [string, ...string[]]))).toEqual(
      [[-1, jobId(6)]],
    );
    expect(await client.exists(slotKeys(q2)[after] as string)).toBe(0);
  });
});

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
