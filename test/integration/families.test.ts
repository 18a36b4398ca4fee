// docs/wire.md "The calls" call by call, on the three families (native EMQ.ADMIT, FCALL emq_admit,
// EVALSHA of the same Lua), on a standalone server and a cluster: the same replies, byte-identical
// rows and pending sets (DUMP), the same records (their expiry digits are the server's clock, so
// they are compared masked), and every refusal leaves the dataset as it was (DEBUG DIGEST).
import type { Cluster, Command, Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payloadDigest } from '../../src/admission/admission.js';
import { install } from '../../src/connection/fence.js';
import type { AdmissionArgs, AdmitCall, IdSource } from '../../src/families/family.js';
import { functionAdmit } from '../../src/families/function.js';
import { LIBRARY_SOURCE, SCRIPT_SOURCE } from '../../src/families/library.js';
import { nativeAdmit } from '../../src/families/native.js';
import { scriptAdmit } from '../../src/families/script.js';
import { mintId } from '../../src/keyspace/ids.js';
import { jobKey, pendingKey, recordField, recordSlotKeys } from '../../src/keyspace/keyspace.js';
import { connectTo, withFencedServers } from '../support/emq.js';
import {
  type ClusterHandle,
  digestOf,
  randomQueue,
  type ServerHandle,
  startStandalone,
} from '../support/servers.js';

const FAMILIES = {
  native: nativeAdmit,
  function: functionAdmit,
  script: scriptAdmit,
} as const satisfies Record<string, (call: AdmitCall) => Command>;
type Family = keyof typeof FAMILIES;

let targets: { standalone: ServerHandle; cluster: ClusterHandle } | undefined;
withFencedServers((servers) => {
  targets = servers;
});

function send(client: Valkey | Cluster, command: Command): Promise<unknown> {
  client.sendCommand(command);
  return command.promise.catch((error: unknown) => error);
}

/** Errors as their text, so replies of two families compare as data. */
function plain(reply: unknown): unknown {
  if (reply instanceof Error) return `error: ${reply.message.split(' ')[0]}`;
  return Array.isArray(reply) ? reply.map(plain) : reply;
}

interface Spec {
  readonly idSource: 'm' | 'c';
  readonly id: string;
  readonly key: string;
  readonly payload: Buffer | string;
}

function admission(queue: string, spec: Spec): AdmissionArgs {
  const payload = Buffer.from(spec.payload);
  return {
    rowKey: `emq:{${queue}}:job:${spec.id}`,
    idSource: spec.idSource,
    digest: payloadDigest(payload),
    field: recordField(spec.idSource === 'c' ? 'id' : 'call', spec.key),
    payload,
  };
}

function call(queue: string, specs: readonly Spec[], ttlMs = '600000'): AdmitCall {
  return {
    pendingKey: pendingKey(queue),
    recordSlotKeys: recordSlotKeys(queue),
    wire: '1',
    ttlMs,
    admissions: specs.map((spec) => admission(queue, spec)),
  };
}

/**
 * A key as two servers can compare it: its encoding, and its DUMP where the encoding is a
 * listpack; a hashtable's DUMP follows each server's hash seed, so there its fields compare.
 */
async function formOf(client: Valkey | Cluster, key: string): Promise<unknown> {
  const encoding = await client.object('ENCODING', key);
  if (encoding === 'listpack')
    return { encoding, dump: (await client.dumpBuffer(key))?.toString('hex') };
  const type = await client.type(key);
  const content =
    type === 'hash'
      ? await client.hgetallBuffer(key)
      : await client.zrange(key, 0, -1, 'WITHSCORES');
  return { encoding, content };
}

/** Every record of a queue, slot left out and expiry masked: what the families must agree on. */
async function sqsRecordsOf(client: Valkey | Cluster, queue: string): Promise<string[]> {
  const seen: string[] = [];
  for (const slot of recordSlotKeys(queue)) {
    const fields = await client.hgetall(slot);
    for (const [field, value] of Object.entries(fields)) {
      if (field !== '~') seen.push(`${field}=${value.replace(/:\d+$/, ':<expiry>')}`);
    }
  }
  return seen.sort();
}

/** Ids fixed for the whole file, so every family writes the same ids and DUMPs can compare. */
const IDS = Array.from({ length: 6 }, () => mintId());
const [A, B, C, D, E, F] = IDS as [string, string, string, string, string, string];
const BINARY = Buffer.from([0, 1, 2, 255, 0x0d, 0x0a]);
const LONG = Buffer.alloc(300, 0x61);

/** The calls of the status table in order, each reply to be the same on every family. */
const SCRIPT_OF_CALLS: readonly (readonly Spec[])[] = [
  // 1: two new keys, one binary and one long payload (a row in hashtable encoding).
  [
    { idSource: 'm', id: A, key: 'k1', payload: BINARY },
    { idSource: 'm', id: B, key: 'k2', payload: LONG },
  ],
  // 2: a replay (0), a taken proposal (2), another digest (-1), a caller id (1), the same key
  //    twice in one call (1 then 0), a caller id whose row exists without a record (0), an id
  //    without JOB (EMQKIND).
  [
    { idSource: 'm', id: C, key: 'k1', payload: BINARY },
    { idSource: 'm', id: A, key: 'k3', payload: 'x' },
    { idSource: 'm', id: C, key: 'k2', payload: 'other' },
    { idSource: 'c', id: D, key: D, payload: 'mine' },
    { idSource: 'm', id: E, key: 'k4', payload: 'twice' },
    { idSource: 'm', id: F, key: 'k4', payload: 'twice' },
    { idSource: 'c', id: B, key: B, payload: LONG },
    { idSource: 'm', id: 'XOB0KHTOWnGLuC', key: 'k5', payload: 'x' },
  ],
  // 3: only duplicates: nothing written but the touch of one record.
  [
    { idSource: 'm', id: C, key: 'k1', payload: BINARY },
    { idSource: 'c', id: D, key: D, payload: 'mine' },
  ],
  // 4: a caller id whose row holds another payload (-1).
  [{ idSource: 'c', id: A, key: A, payload: 'not BINARY' }],
];

const EXPECTED = [
  [
    [1, A],
    [1, B],
  ],
  [[0, A], [2, A], [-1, B], [1, D], [1, E], [0, E], [0, B], 'error: EMQKIND'],
  [
    [0, A],
    [0, D],
  ],
  [[-1, A]],
];

describe.each(['standalone', 'cluster'] as const)('on a %s target with the module', (topology) => {
  const target = () => {
    if (targets === undefined) throw new Error('servers not started');
    return topology === 'cluster' ? targets.cluster : targets.standalone;
  };
  const snapshot = async () => {
    const t = target();
    return t.kind === 'cluster' ? [...(await digestOf(t)).entries()] : await digestOf(t);
  };
  // A connection of the script family loads the script on every primary that lacks it.
  beforeAll(() => connectTo(target(), { family: 'script' }));

  it('answers every admit status alike on the three families and writes the same data', async () => {
    const conn = await connectTo(target());
    const seen: Record<string, { replies: unknown[]; forms: unknown[]; records: string[] }> = {};
    for (const family of Object.keys(FAMILIES) as Family[]) {
      const queue = randomQueue(`fam-${family}`);
      const replies: unknown[] = [];
      for (const specs of SCRIPT_OF_CALLS) {
        replies.push(plain(await send(conn.client, FAMILIES[family](call(queue, specs)))));
      }
      const keys = [A, B, D, E].map((id) => jobKey(queue, id));
      seen[family] = {
        replies,
        forms: await Promise.all(
          [...keys, pendingKey(queue)].map((key) => formOf(conn.client, key)),
        ),
        records: await sqsRecordsOf(conn.client, queue),
      };
      expect(await conn.client.hgetallBuffer(jobKey(queue, A))).toEqual({
        state: Buffer.from('pending'),
        attempts: Buffer.from('0'),
        payload: BINARY,
      });
      expect(await conn.client.exists(jobKey(queue, C), jobKey(queue, F))).toBe(0);
    }
    expect(seen.native?.replies).toEqual(EXPECTED);
    for (const family of ['function', 'script'] as const) {
      expect(seen[family]?.replies).toEqual(seen.native?.replies);
      expect(seen[family]?.records).toEqual(seen.native?.records);
      expect(seen[family]?.forms).toEqual(seen.native?.forms);
    }
    // The long payload makes a hashtable row, the rest listpacks: both encodings are compared.
    expect(seen.native?.forms.map((form) => (form as { encoding: string }).encoding)).toEqual([
      'listpack',
      'hashtable',
      'listpack',
      'listpack',
      'listpack',
    ]);
    // Keys k1, k2, k4 and the caller ids D and B: one record each.
    expect(seen.native?.records).toHaveLength(5);
  });

  it.each([
    ['a key count that does not fit', (c: AdmitCall) => ({ ...c, admissions: [] }), 'ERR'],
    [
      'a pending key of another queue',
      (c: AdmitCall) => ({ ...c, pendingKey: 'emq:{x}:pending' }),
      'EMQLAYOUT',
    ],
    [
      'a slot of another queue',
      (c: AdmitCall) => ({
        ...c,
        recordSlotKeys: [...c.recordSlotKeys.slice(0, 3), 'emq:{x}:dedupe:3'],
      }),
      'EMQLAYOUT',
    ],
    [
      'slots out of order',
      (c: AdmitCall) => ({ ...c, recordSlotKeys: [...c.recordSlotKeys].reverse() }),
      'EMQLAYOUT',
    ],
    [
      'a row key that is not a job row',
      (c: AdmitCall) => ({
        ...c,
        admissions: c.admissions.map((a) => ({ ...a, rowKey: a.rowKey.replace(':job:', ':jab:') })),
      }),
      'EMQLAYOUT',
    ],
    [
      'an id source other than m or c',
      (c: AdmitCall) => ({
        ...c,
        admissions: c.admissions.map((a) => ({ ...a, idSource: 'x' as IdSource })),
      }),
      'ERR',
    ],
    [
      'a malformed digest',
      (c: AdmitCall) => ({
        ...c,
        admissions: c.admissions.map((a) => ({ ...a, digest: 'short' })),
      }),
      'ERR',
    ],
    [
      'a field that is not base64url',
      (c: AdmitCall) => ({
        ...c,
        admissions: c.admissions.map((a) => ({ ...a, field: `${a.field.slice(0, 21)}=` })),
      }),
      'ERR',
    ],
    ['a ttl of 0', (c: AdmitCall) => ({ ...c, ttlMs: '0' }), 'ERR'],
    ['a ttl of 16 digits', (c: AdmitCall) => ({ ...c, ttlMs: '1000000000000000' }), 'ERR'],
    ['another host identity', (c: AdmitCall) => ({ ...c, wire: '2' }), 'EMQWIRE'],
  ])('refuses %s alike on every family and writes nothing', async (_, change, prefix) => {
    const conn = await connectTo(target());
    for (const family of Object.keys(FAMILIES) as Family[]) {
      // In a cluster the function and script families read the fence only on the node that
      // serves its slot: elsewhere the connector's check stands (docs/wire.md).
      if (prefix === 'EMQWIRE' && family !== 'native' && topology === 'cluster') continue;
      const queue = randomQueue('refuse');
      const bad = change(call(queue, [{ idSource: 'm', id: mintId(), key: 'k', payload: 'p' }]));
      const before = await snapshot();
      const reply = await send(conn.client, FAMILIES[family](bad));
      expect(reply).toBeInstanceOf(Error);
      // A layout across queues may be refused by the cluster itself (CROSSSLOT) before the call.
      const text = (reply as Error).message;
      if (topology === 'cluster' && /^CROSSSLOT/.test(text)) expect(prefix).toBe('EMQLAYOUT');
      else expect(text.startsWith(prefix)).toBe(true);
      expect(await snapshot()).toEqual(before);
    }
  });

  it.each([
    ['a pending key that is not a sorted set', (q: string) => ['set', pendingKey(q), 'x']],
    [
      'a record slot that is not a hash',
      (q: string) => ['set', recordSlotKeys(q)[2] as string, 'x'],
    ],
  ])('refuses %s per admission, alike, and writes nothing', async (_, spoil) => {
    const conn = await connectTo(target());
    const replies: Record<string, unknown> = {};
    for (const family of Object.keys(FAMILIES) as Family[]) {
      const queue = randomQueue('wrongtype');
      await conn.client.call(...(spoil(queue) as [string, ...string[]]));
      const before = await snapshot();
      replies[family] = plain(
        await send(
          conn.client,
          FAMILIES[family](call(queue, [{ idSource: 'm', id: mintId(), key: 'k', payload: 'p' }])),
        ),
      );
      expect(await snapshot()).toEqual(before);
    }
    expect(replies.native).toEqual(['error: WRONGTYPE']);
    expect(replies.function).toEqual(replies.native);
    expect(replies.script).toEqual(replies.native);
  });
});

describe('the function and script families on a server without the module (ElastiCache-like)', () => {
  let plainServer: ServerHandle;
  beforeAll(async () => {
    plainServer = await startStandalone();
    await install(await connectTo(plainServer, { checkFence: false }));
    await connectTo(plainServer, { family: 'script' });
  });
  afterAll(() => plainServer.stop());

  it('answer and write exactly as the native family does on a module server', async () => {
    if (targets === undefined) throw new Error('servers not started');
    const plainConn = await connectTo(plainServer);
    const moduleConn = await connectTo(targets.standalone);
    const runs: { replies: unknown[]; forms: unknown[]; records: string[] }[] = [];
    for (const [conn, family] of [
      [moduleConn, 'native'],
      [plainConn, 'function'],
      [plainConn, 'script'],
    ] as const) {
      const queue = randomQueue(`plain-${family}`);
      const replies: unknown[] = [];
      for (const specs of SCRIPT_OF_CALLS) {
        replies.push(plain(await send(conn.client, FAMILIES[family](call(queue, specs)))));
      }
      const keys = [A, B, D, E].map((id) => jobKey(queue, id));
      runs.push({
        replies,
        forms: await Promise.all(
          [...keys, pendingKey(queue)].map((key) => formOf(conn.client, key)),
        ),
        records: await sqsRecordsOf(conn.client, queue),
      });
    }
    const [native, ...others] = runs;
    expect(native?.replies).toEqual(EXPECTED);
    for (const run of others) {
      expect(run.replies).toEqual(native?.replies);
      expect(run.records).toEqual(native?.records);
      expect(run.forms).toEqual(native?.forms);
    }
  });

  it('read the fence on a standalone server, on replays too (docs/wire.md, "admit" step 3)', async () => {
    const conn = await connectTo(plainServer);
    const queue = randomQueue('fenced');
    const first = call(queue, [{ idSource: 'm', id: mintId(), key: 'k', payload: 'p' }]);
    await send(conn.client, functionAdmit(first));
    const admin = await plainServer.client();
    try {
      for (const [what, spoil] of [
        ['another value', () => admin.set('{emq}:version', '2')],
        ['missing', () => admin.del('{emq}:version')],
        ['with a TTL', () => admin.set('{emq}:version', '1', 'PX', 600_000)],
      ] as const) {
        await spoil();
        const before = await digestOf(plainServer);
        for (const admit of [functionAdmit, scriptAdmit]) {
          const replay = await send(conn.client, admit(first));
          expect(replay, what).toBeInstanceOf(Error);
          expect((replay as Error).message, what).toMatch(/^EMQWIRE/);
          const fresh = call(queue, [{ idSource: 'm', id: mintId(), key: 'new', payload: 'p' }]);
          expect(((await send(conn.client, admit(fresh))) as Error).message, what).toMatch(
            /^EMQWIRE/,
          );
        }
        expect(await digestOf(plainServer)).toBe(before);
      }
    } finally {
      await admin.set('{emq}:version', '1');
      admin.disconnect();
    }
  });

  it('the script is the library with its first line blanked, so both families run the same Lua', () => {
    expect(SCRIPT_SOURCE.split('\n').slice(1)).toEqual(LIBRARY_SOURCE.split('\n').slice(1));
    expect(LIBRARY_SOURCE.startsWith('#!lua name=emq\n')).toBe(true);
    expect(SCRIPT_SOURCE.startsWith('--\n')).toBe(true);
  });
});
