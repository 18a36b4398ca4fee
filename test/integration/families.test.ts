// SPEC §4 call by call, on both families and on a standalone server and a cluster: the same
// replies, byte-identical rows and records (DUMP), and every refusal leaves the dataset as it
// was (DEBUG DIGEST of every primary).
import type { Cluster, Command, Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Connection,
  dedupeKey,
  type Executor,
  install,
  jobKey,
  pendingKey,
} from '../../src/index.js';
import { connectTo, withFencedServers } from '../support/emq.js';
import {
  type ClusterHandle,
  digestOf,
  randomQueue,
  type ServerHandle,
  startStandalone,
} from '../support/servers.js';

let targets: { standalone: ServerHandle; cluster: ClusterHandle } | undefined;
withFencedServers((servers) => {
  targets = servers;
});

function send(client: Valkey | Cluster, command: Command): Promise<unknown> {
  client.sendCommand(command);
  return command.promise.catch((error: unknown) => error);
}

const TTL = '60000';

function calls(queue: string, id: string, key: string, payload: Buffer) {
  return {
    enqueue: { jobKey: jobKey(queue, id), pendingKey: pendingKey(queue), id, payload },
    admit: {
      jobKey: jobKey(queue, id),
      pendingKey: pendingKey(queue),
      dedupeKey: dedupeKey(queue, 'call', key),
      id,
      payload,
      ttlMs: TTL,
    },
  };
}

describe.each(['standalone', 'cluster'] as const)('on a %s target', (topology) => {
  const target = () => {
    if (targets === undefined) throw new Error('servers not started');
    return topology === 'cluster' ? targets.cluster : targets.standalone;
  };
  const open = async (): Promise<[Connection, Connection]> => [
    await connectTo(target(), { executor: 'native' }),
    await connectTo(target(), { executor: 'function' }),
  ];
  const snapshot = async () => {
    const t = target();
    return t.kind === 'cluster' ? [...(await digestOf(t)).entries()] : await digestOf(t);
  };

  it('answers every admit status alike and writes byte-identical rows and records', async () => {
    const [native, fn] = await open();
    const replies: Record<string, unknown[]> = {};
    const dumps: Record<string, (Buffer | null)[]> = {};
    const payload = Buffer.from([0, 1, 2, 255, 0x0d, 0x0a]);
    for (const [name, conn] of [
      ['native', native],
      ['function', fn],
    ] as const) {
      const queue = randomQueue(`fam-${name}`);
      const c = calls(queue, 'JOB0KHTOWnGLuC', 'k', payload);
      const taken = calls(queue, 'JOB0KHTOWnGLuC', 'k2', payload);
      const other = calls(queue, 'JOB0KHTOWnGLuD', 'k', Buffer.from('other'));
      const ex: Executor = conn.executor;
      replies[name] = [
        await send(conn.client, ex.admit(c.admit)),
        await send(conn.client, ex.admit(c.admit)),
        await send(conn.client, ex.admit(other.admit)),
        await send(conn.client, ex.admit(taken.admit)),
        await send(conn.client, ex.enqueue(c.enqueue)),
      ];
      dumps[name] = [
        await conn.client.dumpBuffer(c.admit.jobKey),
        await conn.client.dumpBuffer(c.admit.pendingKey),
        await conn.client.dumpBuffer(c.admit.dedupeKey),
      ];
      expect(await conn.client.hgetallBuffer(c.admit.jobKey)).toEqual({
        state: Buffer.from('pending'),
        attempts: Buffer.from('0'),
        payload,
      });
    }
    expect(replies.native).toEqual([
      [1, 'JOB0KHTOWnGLuC'],
      [0, 'JOB0KHTOWnGLuC'],
      [-1, 'JOB0KHTOWnGLuC'],
      [2, 'JOB0KHTOWnGLuC'],
      0,
    ]);
    expect(replies.function).toEqual(replies.native);
    const [nativeDumps, fnDumps] = [dumps.native ?? [], dumps.function ?? []];
    expect(nativeDumps.every((dump) => dump !== null)).toBe(true);
    nativeDumps.forEach((dump, at) => {
      expect(fnDumps[at]?.equals(dump ?? Buffer.alloc(0))).toBe(true);
    });
  });

  it('answers a replay alike when the recorded row is gone (0) or has lost its payload (-1)', async () => {
    const [native, fn] = await open();
    const replies: Record<string, unknown[]> = {};
    for (const [name, conn] of [
      ['native', native],
      ['function', fn],
    ] as const) {
      const queue = randomQueue(`replay-${name}`);
      const consumed = calls(queue, 'JOB0KHTOWnGLuC', 'gone', Buffer.from('p'));
      const stripped = calls(queue, 'JOB0KHTOWnGLuD', 'bare', Buffer.from('p'));
      await send(conn.client, conn.executor.admit(consumed.admit));
      await send(conn.client, conn.executor.admit(stripped.admit));
      // A worker consumed one job (row gone); the other row kept its state but not its payload.
      await conn.client.del(consumed.admit.jobKey);
      await conn.client.hdel(stripped.admit.jobKey, 'payload');
      replies[name] = [
        await send(conn.client, conn.executor.admit(consumed.admit)),
        await send(conn.client, conn.executor.admit(stripped.admit)),
      ];
      expect(await conn.client.exists(consumed.admit.jobKey)).toBe(0);
    }
    expect(replies.native).toEqual([
      [0, 'JOB0KHTOWnGLuC'],
      [-1, 'JOB0KHTOWnGLuD'],
    ]);
    expect(replies.function).toEqual(replies.native);
  });

  it.each([
    ['an id without JOB', 'EMQKIND'],
    ['a pending key of another queue', 'EMQLAYOUT'],
    ['a dedupe key of another queue', 'EMQLAYOUT'],
    ['a pending key that is not a sorted set', 'WRONGTYPE'],
    ['a record that is not a string', 'WRONGTYPE'],
  ])('refuses %s alike and writes nothing', async (what, prefix) => {
    const [native, fn] = await open();
    for (const conn of [native, fn]) {
      const queue = randomQueue('refuse');
      const c = calls(queue, 'JOB0KHTOWnGLuC', 'k', Buffer.from('p'));
      let admit = c.admit;
      if (what === 'an id without JOB') {
        admit = { ...admit, id: 'XOB0KHTOWnGLuC', jobKey: `emq:{${queue}}:job:XOB0KHTOWnGLuC` };
      }
      if (what === 'a pending key of another queue')
        admit = { ...admit, pendingKey: 'emq:{x}:pending' };
      if (what === 'a dedupe key of another queue') {
        admit = { ...admit, dedupeKey: admit.dedupeKey.replace(queue, 'x') };
      }
      if (what === 'a pending key that is not a sorted set')
        await conn.client.set(admit.pendingKey, 'x');
      if (what === 'a record that is not a string') await conn.client.rpush(admit.dedupeKey, 'x');
      const before = await snapshot();
      const reply = await send(conn.client, conn.executor.admit(admit));
      expect(reply).toBeInstanceOf(Error);
      // A layout across queues may be refused by the cluster itself (CROSSSLOT) before the call.
      const text = (reply as Error).message;
      if (topology === 'cluster' && /^CROSSSLOT/.test(text)) expect(prefix).toBe('EMQLAYOUT');
      else expect(text.startsWith(prefix)).toBe(true);
      expect(await snapshot()).toEqual(before);
    }
  });
});

describe('the function family on a server without the module (ElastiCache-like)', () => {
  let plain: ServerHandle;
  beforeAll(async () => {
    plain = await startStandalone();
    await install(await connectTo(plain, { checkFence: false }));
  });
  afterAll(() => plain.stop());

  it('answers and writes exactly as the native family does on a module server', async () => {
    if (targets === undefined) throw new Error('servers not started');
    const fn = await connectTo(plain);
    const native = await connectTo(targets.standalone, { executor: 'native' });
    expect(fn.executor.kind).toBe('function');
    const payload = Buffer.from([0, 255, 10, 13]);
    const results: { replies: unknown[]; dumps: (Buffer | null)[] }[] = [];
    for (const conn of [native, fn]) {
      const queue = randomQueue('plain');
      const c = calls(queue, 'JOB0KHTOWnGLuC', 'k', payload);
      const other = calls(queue, 'JOB0KHTOWnGLuD', 'k', Buffer.from('x'));
      const taken = calls(queue, 'JOB0KHTOWnGLuC', 'k2', payload);
      const replies = [
        await send(conn.client, conn.executor.admit(c.admit)),
        await send(conn.client, conn.executor.admit(c.admit)),
        await send(conn.client, conn.executor.admit(other.admit)),
        await send(conn.client, conn.executor.admit(taken.admit)),
        await send(conn.client, conn.executor.enqueue(c.enqueue)),
      ];
      const dumps = await Promise.all(
        [c.admit.jobKey, c.admit.pendingKey, c.admit.dedupeKey].map((key) =>
          conn.client.dumpBuffer(key),
        ),
      );
      results.push({ replies, dumps });
    }
    const [a, b] = results;
    expect(b?.replies).toEqual(a?.replies);
    a?.dumps.forEach((dump, at) => {
      expect(dump).not.toBeNull();
      expect(b?.dumps[at]?.equals(dump ?? Buffer.alloc(0))).toBe(true);
    });
  });

  it('refuses a pending key of the wrong type and writes nothing', async () => {
    const fn = await connectTo(plain);
    const queue = randomQueue('plain-wrong');
    const c = calls(queue, 'JOB0KHTOWnGLuC', 'k', Buffer.from('p'));
    await fn.client.set(c.admit.pendingKey, 'x');
    const before = await digestOf(plain);
    const reply = await send(fn.client, fn.executor.admit(c.admit));
    expect((reply as Error).message).toMatch(/^WRONGTYPE/);
    expect(await digestOf(plain)).toBe(before);
  });
});
