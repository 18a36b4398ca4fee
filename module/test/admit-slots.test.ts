// EMQ.ADMIT: the four record slots (the dead-slot unlinks, the header, every live slot read),
// v2 records and the v2 form, what observers see of the writes (WATCH, keyspace events), and
// the registration. admit.test.ts has the statuses.
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomQueue, type ServerHandle, startStandalone } from '../../test/support/servers.js';
import { waitFor } from '../../test/support/wait.js';
import {
  admit,
  admitKeys,
  admitMany,
  awayFromBoundary,
  jobId,
  payloadDigest,
  recordHash,
  recordOf,
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

const HOUR = 3_600_000;
const WINDOW = HOUR / 2;

describe('EMQ.ADMIT: the four slots', () => {
  it('unlinks the dead slot after the live ones, and a dead target before writing it', async () => {
    const q = randomQueue('purge');
    const now = await awayFromBoundary(client, WINDOW);
    const target = Math.floor((now + HOUR) / WINDOW) % 4;
    const after = (Math.floor(now / WINDOW) + 3) % 4;
    const slots = slotKeys(q);
    for (const slot of slots)
      await client.hset(slot, 'deadrecord000000000000', `${jobId(9)}:x:5`, '~', '5');
    expect(await admit(client, q, jobId(601), 'k', 'p', HOUR)).toEqual([1, jobId(601)]);
    const fields = await Promise.all(slots.map((s) => client.hkeys(s)));
    fields.forEach((held, s) => {
      if (s === target) expect(held).toEqual([recordHash('k').slice(0, 22), '~']);
      else if (s === after) expect(held).toEqual([]);
      else expect(held).toEqual(['deadrecord000000000000', '~']);
    });
  });

  it('keeps a later header; reads records in every live slot, each by its own expiry', async () => {
    const q = randomQueue('header');
    const now = await awayFromBoundary(client, WINDOW);
    const target = Math.floor((now + HOUR) / WINDOW) % 4;
    const other = (target + 1) % 4;
    const far = now + 10 * HOUR;
    const field = (key: string) => recordHash(key).slice(0, 22);
    await client.hset(slotKeys(q)[target] as string, '~', String(far));
    await client.hset(
      slotKeys(q)[other] as string,
      field('live'),
      `${jobId(701)}:${payloadDigest('p')}:${far}`,
      field('dead'),
      `${jobId(702)}:${payloadDigest('p')}:${now - 1}`,
      '~',
      String(far),
    );
    expect(
      await admitMany(client, q, [
        { id: jobId(703), key: 'live', payload: 'p' },
        { id: jobId(704), key: 'dead', payload: 'p' },
      ]),
    ).toEqual([
      [0, jobId(701)],
      [1, jobId(704)],
    ]);
    expect(await client.hget(slotKeys(q)[target] as string, '~')).toBe(String(far));
  });
});

describe('EMQ.ADMIT writes are the plain commands, to every observer', () => {
  it('a client WATCHing a row, the pending set or a slot it writes sees its EXEC aborted', async () => {
    const q = randomQueue('watch');
    const [a, b, c] = [jobId(901), jobId(902), jobId(903)];
    const cases: Array<[string[], () => Promise<unknown>]> = [
      [[admitKeys(q, a).row], () => admit(client, q, a, 'ka', 'p')],
      [[`emq:{${q}}:pending`], () => admit(client, q, b, 'kb', 'p')],
      [slotKeys(q), () => admit(client, q, c, 'kc', 'p')],
    ];
    for (const [keys, act] of cases) {
      const watcher = await server.client();
      await watcher.watch(...keys);
      expect(await act()).toEqual([1, expect.any(String)]);
      expect(await watcher.multi().get('x').exec(), keys.join()).toBeNull();
      watcher.disconnect();
    }
    // A replay writes only the touch of its record: a client WATCHing the row goes on.
    const watcher = await server.client();
    await watcher.watch(admitKeys(q, a).row, `emq:{${q}}:pending`);
    expect(await admit(client, q, jobId(904), 'ka', 'p')).toEqual([0, a]);
    expect(await watcher.multi().get('x').exec()).toEqual([[null, null]]);
    watcher.disconnect();
  });

  it('fires the events of HSET and ZADD for the row, the pending set and the slot', async () => {
    await client.call('CONFIG', 'SET', 'notify-keyspace-events', 'KEA');
    const listener = await server.client();
    const seen: string[] = [];
    listener.on('pmessage', (_p: string, channel: string, key: string) => {
      seen.push(`${channel.replace(/^__keyevent@0__:/, '')} ${key}`);
    });
    await listener.psubscribe('__keyevent@0__:*');
    try {
      const q = randomQueue('events');
      const [a, b] = [jobId(951), jobId(952)];
      await admitMany(client, q, [
        { id: a, key: 'k1', payload: 'p' },
        { id: b, key: 'k2', payload: 'p' },
      ]);
      await client.set(`end-${q}`, '1');
      await waitFor('the events', 30_000, async () =>
        seen.includes(`set end-${q}`) ? undefined : 'not yet',
      );
      const slot = (await recordOf(client, q, 'k1'))?.slot ?? -1;
      expect(seen.filter((e) => e.includes(q))).toEqual(
        [
          `new emq:{${q}}:job:${a}`,
          `hset emq:{${q}}:job:${a}`,
          `new emq:{${q}}:job:${b}`,
          `hset emq:{${q}}:job:${b}`,
          `new emq:{${q}}:pending`,
          `zadd emq:{${q}}:pending`,
          `new emq:{${q}}:dedupe:${slot}`,
          `hset emq:{${q}}:dedupe:${slot}`,
          `set end-${q}`,
        ].filter((e) => !e.startsWith('new ') || seen.includes(e)),
      );
    } finally {
      await client.call('CONFIG', 'SET', 'notify-keyspace-events', '');
      listener.disconnect();
    }
  });
});

describe('EMQ.ADMIT registration', () => {
  it('declares its keys itself (getkeys-api): write deny-oom fast, movable keys', async () => {
    const [info] = (await client.call('COMMAND', 'INFO', 'emq.admit')) as unknown[][];
    expect(info?.slice(0, 6)).toEqual([
      'emq.admit',
      -1,
      ['write', 'denyoom', 'module', 'fast', 'movablekeys'],
      0,
      0,
      0,
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
