// The families' harness (families.test.ts): the module's EMQ.ADMIT on one server, the emq
// library (FUNCTION LOAD of src/families/emq.lua) on a server without the module; a scenario
// runs on both from the same data, and `same` compares every reply (error texts by the prefix
// hosts match), every key (type, OBJECT ENCODING, the DUMP of small objects, a hashtable's or
// skiplist's content, a record slot's fields in order with the expiry digits masked) and every
// keyspace event, in order.
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, expect } from 'vitest';
import { LIBRARY_SOURCE } from '../../src/families/library.js';
import { randomQueue, type ServerHandle, startStandalone } from '../../test/support/servers.js';
import { waitFor } from '../../test/support/wait.js';
import {
  type Admission,
  type AdmitOptions,
  admitArgs,
  jobId,
  recordHash,
  serverMs,
} from './helpers.js';

let native: ServerHandle;
let library: ServerHandle;
let mod: Valkey;
let lua: Valkey;
/** Keyspace events of each server (every class), in order: `<event> <key>`. */
const events: Record<'native' | 'function', string[]> = { native: [], function: [] };

/** Starts both servers (the module; the library without it) and their event listeners. */
export function useFamilies(): void {
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
}

/** The clients of both servers: the module's and the library's. */
export function clients(): { mod: Valkey; lua: Valkey } {
  return { mod, lua };
}

export const HOUR = 3_600_000;

export type Step =
  | { readonly admit: readonly Admission[]; readonly options?: AdmitOptions }
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
  await waitFor('the clock to leave a window boundary', 30_000, async () => {
    now = await serverMs(mod);
    const into = now % (HOUR / 2);
    return into > 2_000 && HOUR / 2 - into > 2_000 ? undefined : 'near a boundary';
  });
  return now;
}

/** Runs the steps on both families from the same data and compares everything. */
export async function same(
  name: string,
  steps: (q: string, now: number) => Step[],
): Promise<unknown[]> {
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
    await waitFor(`${family} events of ${name}`, 30_000, async () =>
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

export const row = (q: string, id: string) => `emq:{${q}}:job:${id}`;
export const field = (key: string) => recordHash(key).slice(0, 22);
export const a = (
  n: number,
  key: string,
  payload: string,
  more: Partial<Admission> = {},
): Admission => ({
  id: jobId(n),
  key,
  payload,
  ...more,
});
