// The families answer alike (SPEC §4): the module's EMQ.ADMIT on one server, the emq library
// (FUNCTION LOAD of src/executors/emq.lua) on a server without the module, the same calls on
// the same data. Compared: every reply (error texts by the prefix hosts match), and then every
// key: type, OBJECT ENCODING, and the DUMP of rows, pending sets and v2 records, or, for a
// record slot, its fields in order with the expiry digits masked. A hashtable's DUMP follows its
// hash seed, random per server, so a hashtable or skiplist is compared by content instead.
// And the keyspace events (hset, zadd, del of an UNLINK, ...): the same, in the same order.
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIBRARY_SOURCE } from '../../src/executors/library.js';
import { randomQueue, type ServerHandle, startStandalone } from '../../test/support/servers.js';
import { waitFor } from '../../test/support/wait.js';
import {
  type Admission,
  type AdmitOptions,
  admitArgs,
  admitKeys,
  dedupeHash,
  jobId,
  payloadDigest,
  serverMs,
  slotKeys,
} from './helpers.js';

let native: ServerHandle;
let library: ServerHandle;
let mod: Valkey;
let lua: Valkey;
/** Keyspace events of each server (every class), in order: `<event> <key>`. */
const events: Record<'native' | 'function', string[]> = { native: [], function: [] };

beforeAll(async () => {
  [native, library] = await Promise.all([
    startStandalone({ module: true }),
    startStandalone({ module: false }),
  ]);
  mod = await native.client();
  lua = await library.client();
  expect(await lua.call('FUNCTION', 'LOAD', 'REPLACE', LIBRARY_SOURCE)).toBe('emq');
  for (const [family, server] of [
    ['native', native],
    ['function', library],
  ] as const) {
    const admin = await server.client();
    await admin.call('CONFIG', 'SET', 'notify-keyspace-events', 'KEA');
    const listener = await server.client();
    listener.on('pmessage', (_pattern: string, channel: string, key: string) => {
      events[family].push(`${channel.replace(/^__keyevent@0__:/, '')} ${key}`);
    });
    await listener.psubscribe('__keyevent@0__:*');
  }
});
afterAll(async () => {
  await Promise.all([native?.stop(), library?.stop()]);
});

const HOUR = 3_600_000;

type Step =
  | { readonly admit: readonly Admission[]; readonly options?: AdmitOptions }
  | { readonly v2: readonly [id: string, key: string, payload: string, ttl?: string] }
  | { readonly raw: readonly (string | Buffer)[] };

/** A reply with its errors as the prefix hosts match ("ERR wrong number of arguments", ...). */
function normalized(reply: unknown): unknown {
  if (reply instanceof Error) {
    const text = reply.message;
    return `error ${/^ERR wrong number of arguments/.test(text) ? 'ERR wrong number of arguments' : text.startsWith('ERR') ? text : text.split(' ')[0]}`;
  }
  if (Array.isArray(reply)) return reply.map(normalized);
  return reply;
}

async function run(client: Valkey, family: 'native' | 'function', step: Step): Promise<unknown> {
  try {
    if ('raw' in step) return await client.call(...(step.raw as [string, ...string[]]));
    if ('v2' in step) {
      const [id, key, payload, ttl] = step.v2;
      const keys = admitKeys(current, id, key);
      const args = ['3', keys.row, keys.pending, keys.dedupe, id, payload, ttl ?? String(HOUR)];
      return family === 'native'
        ? await client.call('EMQ.ADMIT', ...args)
        : await client.call('FCALL', 'emq_admit', ...args);
    }
    const args = admitArgs(current, step.admit, { ttlMs: HOUR, ...step.options });
    return family === 'native'
      ? await client.call('EMQ.ADMIT', ...args)
      : await client.call('FCALL', 'emq_admit', ...args);
  } catch (error) {
    return error;
  }
}

/** The queue of the scenario under way. */
let current = '';

/** Every key of a server, as the comparison sees it. */
async function keyspace(client: Valkey): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const keys = ((await client.keys('*')) as string[])
    .filter((k) => k !== '{emq}:version' && !/^(marker|end)-/.test(k))
    .sort();
  for (const key of keys) {
    const type = await client.type(key);
    const encoding = await client.object('ENCODING', key);
    const ttl = (await client.pttl(key)) === -1 ? 'no ttl' : 'ttl';
    let content: unknown;
    if (/^emq:\{[^}]+\}:dedupe:[0-3]$/.test(key) && type === 'hash') {
      const pairs = (await client.call('HGETALL', key)) as string[];
      const masked = pairs.map((v, i) =>
        i % 2 === 0 ? v : pairs[i - 1] === '~' ? '<expiry>' : v.replace(/:\d+$/, ':<expiry>'),
      );
      const entries: string[] = [];
      for (let i = 0; i < masked.length; i += 2) entries.push(`${masked[i]}=${masked[i + 1]}`);
      content = encoding === 'listpack' ? entries : entries.sort();
    } else if (encoding === 'hashtable' || encoding === 'skiplist') {
      content =
        type === 'hash'
          ? Object.entries(await client.hgetall(key)).sort()
          : await client.zrange(key, 0, -1, 'WITHSCORES');
    } else {
      content = (await client.dumpBuffer(key))?.toString('hex');
    }
    out[key] = { type, encoding, ttl, content };
  }
  return out;
}

/** Waits until the clock is 2 s away from a window boundary of a 1 h record life. */
async function settled(): Promise<number> {
  let now = 0;
  await waitFor('the clock to leave a window boundary', 10_000, async () => {
    now = await serverMs(mod);
    const into = now % (HOUR / 2);
    return into > 2_000 && HOUR / 2 - into > 2_000 ? undefined : 'near a boundary';
  });
  return now;
}

/** Runs the steps on both families from the same data and compares everything. */
async function same(name: string, steps: (q: string, now: number) => Step[]): Promise<unknown[]> {
  current = randomQueue(name);
  await Promise.all([mod.call('FLUSHALL'), lua.call('FLUSHALL')]);
  await Promise.all([mod.call('EMQ.WIRE.INSTALL'), lua.set('{emq}:version', '1')]);
  const now = await settled();
  const marker = `marker-${name}`;
  await Promise.all([mod.set(marker, '1'), lua.set(marker, '1')]);
  const replies: unknown[][] = [[], []];
  for (const step of steps(current, now)) {
    const [a, b] = await Promise.all([run(mod, 'native', step), run(lua, 'function', step)]);
    replies[0]?.push(normalized(a));
    replies[1]?.push(normalized(b));
  }
  expect(replies[0], `${name}: replies`).toEqual(replies[1]);
  expect(await keyspace(mod), `${name}: keyspace`).toEqual(await keyspace(lua));
  // The same keyspace events, in the same order, from the marker on.
  const end = `end-${name}`;
  await Promise.all([mod.set(end, '1'), lua.set(end, '1')]);
  const since = async (family: 'native' | 'function') => {
    await waitFor(`${family} events of ${name}`, 5_000, async () =>
      events[family].includes(`set ${end}`) ? undefined : 'not yet',
    );
    const list = events[family];
    return list.slice(list.indexOf(`set ${marker}`) + 1, list.indexOf(`set ${end}`));
  };
  const seen = await since('native');
  expect(seen.length, `${name}: keyspace events seen`).toBeGreaterThan(0);
  expect(seen, `${name}: keyspace events`).toEqual(await since('function'));
  return replies[0] as unknown[];
}

const row = (q: string, id: string) => `emq:{${q}}:job:${id}`;
const field = (key: string) => dedupeHash(key).slice(0, 22);
const a = (n: number, key: string, payload: string, more: Partial<Admission> = {}): Admission => ({
  id: jobId(n),
  key,
  payload,
  ...more,
});

describe('EMQ.ADMIT and FCALL emq_admit, the same calls on the same data', () => {
  it('new keys, replays, another digest, a taken row, a caller id', async () => {
    await same('basic', (q) => [
      { admit: [a(1, 'k1', 'p1'), a(2, 'k2', 'p2'), a(3, 'k3', '')] },
      { admit: [a(4, 'k1', 'p1')] }, // 0 and a touch
      { admit: [a(5, 'k2', 'other')] }, // -1
      { admit: [a(1, 'k9', 'p')] }, // 2
      { raw: ['HSET', row(q, jobId(6)), 'state', 'pending', 'attempts', '0', 'payload', 'mine'] },
      { admit: [a(6, 'c1', 'mine', { kind: 'c' }), a(6, 'c2', 'not mine', { kind: 'c' })] },
      { admit: [a(7, 'k4', 'p'), a(8, 'k1', 'p1')] }, // 1 and 0: no touch
    ]);
  });

  it('admissions of one call seeing each other', async () => {
    await same('incall', () => [
      {
        admit: [
          a(1, 'k', 'p'),
          a(2, 'k', 'p'),
          a(3, 'k', 'q'),
          a(1, 'k2', 'p'),
          a(1, 'k3', 'p', { kind: 'c' }),
          a(1, 'k4', 'x', { kind: 'c' }),
          a(9, 'k5', 'p', { kind: 'c' }),
          a(9, 'k6', 'p', { kind: 'c' }),
        ],
      },
    ]);
  });

  it('EMQKIND and WRONGTYPE elements: id, v2 record, pending, slot', async () => {
    await same('elements', (q) => [
      { admit: [a(1, 'k1', 'p', { id: 'XOB1' }), a(2, 'k2', 'p')] },
      { raw: ['HSET', admitKeys(q, 'x', 'k3').dedupe, 'f', 'v'] },
      { admit: [a(3, 'k3', 'p'), a(4, 'k4', 'p'), a(5, 'k2', 'p')] },
      { raw: ['DEL', `emq:{${q}}:pending`] },
      { raw: ['SET', `emq:{${q}}:pending`, 'x'] },
      { admit: [a(6, 'k6', 'p'), a(7, 'k2', 'p'), a(2, 'k7', 'p'), a(8, 'k8', 'p', { id: 'JO' })] },
      { raw: ['SET', slotKeys(q)[3] as string, 'x'] },
      { admit: [a(9, 'k9', 'p', { id: 'XOB9' }), a(10, 'k10', 'p')] },
    ]);
  });

  it('v2 records: the same payload (0, SET KEEPTTL), another (-1), consumed (0)', async () => {
    await same('v2records', (q) => [
      { raw: ['HSET', row(q, jobId(1)), 'state', 'pending', 'attempts', '0', 'payload', 'p'] },
      { raw: ['SET', admitKeys(q, 'x', 'k1').dedupe, jobId(1), 'PX', String(HOUR)] },
      { raw: ['SET', admitKeys(q, 'x', 'k2').dedupe, jobId(1), 'PX', String(HOUR)] },
      { raw: ['SET', admitKeys(q, 'x', 'k3').dedupe, jobId(2), 'PX', String(HOUR)] },
      { admit: [a(3, 'k1', 'p')] },
      { admit: [a(4, 'k2', 'other'), a(5, 'k3', 'any')] },
      { raw: ['HDEL', row(q, jobId(1)), 'payload'] },
      { admit: [a(6, 'k1', 'p')] }, // a row without its payload: another payload
    ]);
  });

  it('dead slots: the one after the live ones, a dead target; a later header kept', async () => {
    await same('slots', (q, now) => {
      const window = HOUR / 2;
      const target = Math.floor((now + HOUR) / window) % 4;
      const steps: Step[] = slotKeys(q).map((slot) => ({
        raw: ['HSET', slot, field('dead'), `${jobId(90)}:${payloadDigest('p')}:5`, '~', '5'],
      }));
      steps.push({ admit: [a(1, 'k1', 'p'), a(2, 'dead', 'p')] });
      steps.push({ raw: ['HSET', slotKeys(q)[target] as string, '~', String(now + 9 * HOUR)] });
      steps.push({ admit: [a(3, 'k3', 'p')] });
      steps.push({ admit: [a(4, 'k1', 'p')] }); // only a touch
      return steps;
    });
  });

  it('encodings: a payload over 64 bytes, 130 new members, a record over 64 bytes', async () => {
    const big = 'x'.repeat(65);
    await same('encodings', () => [
      { admit: [a(1, 'big', big)] },
      { admit: Array.from({ length: 130 }, (_, i) => a(100 + i, `many${i}`, `p${i}`)) },
      { admit: [a(0, 'long', 'p', { id: `JOB${'L'.repeat(50)}` })] },
    ]);
  });

  it('a slot that outgrows its listpack (over 512 records)', async () => {
    await same('growth', () =>
      Array.from({ length: 6 }, (_, call) => ({
        admit: Array.from({ length: 100 }, (_, i) =>
          a(1000 + call * 100 + i, `g${call}-${i}`, 'p'),
        ),
      })),
    );
  });

  it("headers and expiries neither family wrote, read as Lua's tonumber reads them", async () => {
    const far = '99999999999999';
    const rec = (n: number, tail: string) => `${jobId(n)}:${payloadDigest('p')}:${tail}`;
    const replies = await same('numbers', (q) => [
      { raw: ['HSET', slotKeys(q)[0] as string, '~', 'not a number', field('k0'), rec(1, far)] },
      {
        raw: [
          'HSET',
          slotKeys(q)[1] as string,
          '~',
          ` ${far} `,
          field('k1'),
          rec(2, '0x7fffffffffff'),
        ],
      },
      {
        raw: [
          'HSET',
          slotKeys(q)[2] as string,
          '~',
          '1e20',
          field('k2'),
          rec(3, ' 1e15\t'),
          field('k3'),
          rec(4, `${far}x`),
        ],
      },
      {
        raw: [
          'HSET',
          slotKeys(q)[3] as string,
          '~',
          `${far}\u0000junk`,
          field('k4'),
          rec(5, '-5'),
          field('k5'),
          'short',
        ],
      },
      {
        admit: ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6'].map((key, i) => a(10 + i, key, 'p')),
      },
    ]);
    // Slot 0's header is no number: its records do not count. " <n> ", 1e20 and "<n>\0junk"
    // are numbers, so are a hex and a spaced exponent expiry; "<n>x", -5 and a short value die.
    expect(replies.at(-1)).toEqual([
      [1, jobId(10)],
      [0, jobId(2)],
      [0, jobId(3)],
      [1, jobId(13)],
      [1, jobId(14)],
      [1, jobId(15)],
      [1, jobId(16)],
    ]);
  });

  it('call-level refusals: shape, layout, fence; nothing written on either', async () => {
    await same('refusals', () => [
      { admit: [a(1, 'k', 'p')], options: { wire: 'bad wire' } },
      { admit: [a(1, 'k', 'p')], options: { ttlMs: '0' } },
      { admit: [a(1, 'k', 'p', { kind: 'x' })] },
      { admit: [a(1, 'k', 'p', { digest: 'short' })] },
      { raw: ['EMQ-NOT-A-COMMAND'] },
      { admit: [a(1, 'k', 'p')], options: { wire: '2' } },
      { raw: ['DEL', '{emq}:version'] },
      { admit: [a(1, 'k', 'p')] },
      { raw: ['SET', '{emq}:version', '1', 'PX', String(HOUR)] },
      { admit: [a(1, 'k', 'p')] },
      { raw: ['SET', '{emq}:version', '1'] },
      { admit: [a(2, 'k', 'p')] },
    ]);
    // And the layout: a row of another queue (both answer EMQLAYOUT, nothing written).
    const q = randomQueue('layout');
    const args = admitArgs(q, [a(3, 'k', 'p')]);
    args[6] = `emq:{other}:job:${jobId(3)}`;
    const [m, l] = await Promise.all([
      mod.call('EMQ.ADMIT', ...args).catch((e: Error) => e),
      lua.call('FCALL', 'emq_admit', ...args).catch((e: Error) => e),
    ]);
    expect(String(m)).toBe(String(l));
    expect(String(m)).toMatch(/^ReplyError: EMQLAYOUT /);
  });

  it('the v2 form: a new key, a replay, another payload, over a v3 record', async () => {
    await same('v2form', () => [
      { v2: [jobId(1), 'k1', 'p'] },
      { v2: [jobId(2), 'k1', 'p'] },
      { v2: [jobId(3), 'k1', 'q'] },
      { admit: [a(4, 'k2', 'p')] },
      { v2: [jobId(5), 'k2', 'p'] }, // sees the v3 record; its touch is an HSET of it
      { v2: [jobId(6), 'k2', 'other'] },
      { admit: [a(7, 'k1', 'p')] }, // v3 sees the v2 record
    ]);
  });
});
