// The refusal table of docs/wire.md for EMQ.ADMIT on a real server. Each case breaks its step
// AND every later one, so the expected refusal proves the step runs first; each leaves the
// dataset byte-for-byte as it was (DEBUG DIGEST, and the DUMP and expiry of every key).
import { describe, expect, it } from 'vitest';
import { randomQueue } from '../../test/support/servers.js';
import { waitFor } from '../../test/support/wait.js';
import { jobId, payloadDigest, recordHash, serverMs, slotKeys } from './helpers.js';
import {
  admitCall,
  breakFence,
  client,
  laterStepsBroken,
  one,
  PAUSED,
  refused,
  SHAPE,
  unchanged,
  useRefusalServer,
  WIRE,
  WRONGTYPE_ELEMENT,
} from './refusal-helpers.js';

useRefusalServer();

describe('EMQ.ADMIT refuses, in order, with nothing written', () => {
  it('1 shape: key count and argument count, before anything else is looked at', async () => {
    const q = randomQueue('shape');
    await breakFence('missing');
    const args = admitCall(q, [one('XOB1'), one('XOB2', 'k2')]);
    const counts = [
      ['EMQ.ADMIT'], // no key count
      ['EMQ.ADMIT', 'x', ...args.slice(2)], // not a number
      ['EMQ.ADMIT', '-1', ...args.slice(2)],
      ['EMQ.ADMIT', '100', ...args.slice(2)], // more keys than arguments
      ['EMQ.ADMIT', '5', ...args.slice(2)], // no admission
      ['EMQ.ADMIT', '8', ...args.slice(2)], // rows that the arguments do not match
      args.slice(0, -1), // one argument short
      [...args, 'extra'],
      ['EMQ.ADMIT', '0'],
    ];
    for (const bad of counts) expect(await refused(bad), bad.slice(0, 2).join(' ')).toMatch(SHAPE);
  });

  it('1 shape: wire, ttl-ms, each claim (kind, digest, field) malformed, before the layout', async () => {
    await breakFence('missing');
    const q = randomQueue('shape');
    const broken = (args: (string | Buffer)[]) => {
      args[2] = 'not-a-pending-key'; // the layout is broken too
      return args;
    };
    for (const wire of ['', 'has space', 'x'.repeat(65), 'caf\u00e9']) {
      expect(await refused(broken(admitCall(q, [one('XOB1')], wire))), `wire ${wire}`).toMatch(
        /^ERR wrong number of arguments for 'emq\.admit' command: wire must be 1 to 64 printable/,
      );
    }
    for (const ttl of ['0', '-5', '1.5', 'x', '', '01', '+5', ' 5', '1000000000000000']) {
      expect(await refused(broken(admitCall(q, [one('XOB1')], '1', ttl))), `ttl ${ttl}`).toMatch(
        /^ERR wrong number of arguments for 'emq\.admit' command: ttl-ms must be a positive integer$/,
      );
    }
    for (const kind of ['', 'M', 'mm', 'x']) {
      expect(
        await refused(broken(admitCall(q, [one('XOB1'), one('XOB2', 'k2', { kind })]))),
      ).toMatch(/: claim must be m or c, then 38 base64url characters$/);
    }
    for (const digest of ['', 'A'.repeat(15), 'A'.repeat(17), `${'A'.repeat(15)}+`]) {
      expect(await refused(broken(admitCall(q, [one('XOB1', 'k', { digest })])))).toMatch(
        /: claim must be m or c, then 38 base64url characters$/,
      );
    }
  });

  it("2 layout: keys not one queue's, before the fence and the kind", async () => {
    await breakFence('missing');
    const q = randomQueue('layout');
    const other = randomQueue('other');
    const cases: Array<[string, number, string]> = [
      ['pending of another shape', 2, `emq:{${q}}:pend`],
      ['a brace in the queue', 2, 'emq:{a{b}:pending'],
      ['an empty queue', 2, 'emq:{}:pending'],
      ['slot 0 of another queue', 3, `emq:{${other}}:dedupe:0`],
      ['slots out of order', 4, `emq:{${q}}:dedupe:2`],
      ['slot 4', 6, `emq:{${q}}:dedupe:4`],
      ['a row without job:', 7, `emq:{${q}}:jobXOB1`],
      ['row of another queue', 7, `emq:{${other}}:job:XOB1`],
      ['a slot where the row goes', 7, `emq:{${q}}:dedupe:0`],
    ];
    for (const [what, position, key] of cases) {
      const args = admitCall(q, [one('XOB1')]);
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
      expect(await refused(admitCall(q, [one('XOB1')])), how).toMatch(WIRE);
    }
    await client.call('EMQ.WIRE.INSTALL');
    const q = randomQueue('fence');
    await laterStepsBroken(q, 'XOB1', 'k');
    expect(await refused(admitCall(q, [one('XOB1')], '2'))).toMatch(
      /^EMQWIRE wire identity mismatch: module has '1', host expects '2'$/,
    );
  });

  it('4 kind: EMQKIND for that admission, before its record is read; the others answer', async () => {
    const q = randomQueue('kind');
    await laterStepsBroken(q, 'JO', 'k');
    const reply = await unchanged(admitCall(q, [one('JO'), one('XOB1', 'k2')]), true);
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
      recordHash('k').slice(0, 22),
      `${id}:${payloadDigest('other')}:99999999999999`,
      '~',
      '99999999999999',
    );
    await client.set(`emq:{${q}}:pending`, 'not a zset');
    await client.set(`emq:{${q}}:job:${jobId(2)}`, 'a row of any type');
    expect(await unchanged(admitCall(q, [one(jobId(3)), one(jobId(2), 'k2')]), true)).toEqual([
      [-1, id],
      [2, jobId(2)],
    ]);
  });

  it("6 type: WRONGTYPE per admission (pending, a caller id's row), before the pause", async () => {
    const q = randomQueue('type');
    await client.set(`emq:{${q}}:pending`, 'not a zset');
    await client.set(`emq:{${q}}:job:${jobId(2)}`, 'a string row');
    const reply = await unchanged(
      admitCall(q, [one(jobId(1)), one(jobId(2), 'k2', { kind: 'c' })]),
      true,
    );
    expect(reply.map(String)).toEqual([
      expect.stringMatching(WRONGTYPE_ELEMENT),
      expect.stringMatching(WRONGTYPE_ELEMENT),
    ]);
    // A slot that is not a hash: every admission, whatever else it is.
    const q2 = randomQueue('type');
    await client.set(slotKeys(q2)[1] as string, 'x');
    const all = await unchanged(admitCall(q2, [one('XOB1'), one(jobId(4), 'k4')]), true);
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
      recordHash('old').slice(0, 22),
      `${jobId(6)}:${payloadDigest('x')}:99999999999999`,
      '~',
      '99999999999999',
    );
    expect(await refused(admitCall(q, [one(jobId(7), 'old'), one(id)]), true)).toMatch(PAUSED);
    expect(await client.call(...(admitCall(q, [one(id)]) as [string, ...string[]]))).toEqual([
      [1, id],
    ]);
    // Only a touch (0): refused too, so that a WAIT never passes without it.
    expect(await refused(admitCall(q, [one(jobId(8))]), true)).toMatch(PAUSED);
    // Only the unlink of a dead slot: the one after the live ones is dead, a -1 answer writes
    // nothing else. Which slot that is follows the clock: W = 30 s for a 60 s record life.
    const q2 = randomQueue('paused');
    let now = 0;
    await waitFor('the clock to leave a window boundary', 30_000, async () => {
      now = await serverMs(client);
      return now % 30_000 > 2_000 && 30_000 - (now % 30_000) > 2_000 ? undefined : 'near one';
    });
    const after = (Math.floor(now / 30_000) + 3) % 4;
    await client.hset(slotKeys(q2)[after] as string, 'f', 'v', '~', '5');
    const live = slotKeys(q2)[(after + 1) % 4] as string;
    await client.hset(
      live,
      recordHash('old').slice(0, 22),
      `${jobId(6)}:${payloadDigest('x')}:99999999999999`,
      '~',
      '99999999999999',
    );
    expect(await refused(admitCall(q2, [one(jobId(9), 'old')]), true)).toMatch(PAUSED);
    expect(
      await client.call(...(admitCall(q2, [one(jobId(9), 'old')]) as [string, ...string[]])),
    ).toEqual([[-1, jobId(6)]]);
    expect(await client.exists(slotKeys(q2)[after] as string)).toBe(0);
  });
});
