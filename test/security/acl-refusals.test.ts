// Least privilege, refused: on each server kind, under the rules read from the synthesized
// template, the functions' user and the installer's user are refused everything beyond
// their family's calls (EVAL, FUNCTION LOAD/FLUSH/DELETE, SCRIPT FLUSH, SCAN/KEYS, DEL,
// EXPIRE, DUMP, writing `{emq}:version`, the install right, keys outside the queues, inner
// commands on keys that are not theirs, Lua of their own beyond their own permissions), and
// every refusal leaves the dataset and the libraries (functions, or the script cache) byte
// for byte as they were. Where Serverless has no such command at all (FCALL, FUNCTION, WAIT)
// the Serverless-like server answers "unknown command", as Serverless does.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIBRARY_SOURCE } from '../../src/families/library.js';
import {
  type ClusterHandle,
  type ServerHandle,
  startCluster,
  startStandalone,
} from '../support/servers.js';
import {
  aclArgs,
  aclDir,
  FUNCTIONS_USER,
  INSTALLER_USER,
  KINDS,
  PASSWORD,
  type ServerKind,
} from './acl-setup.js';
import {
  FENCE_KEY,
  keysOf,
  ownerOf,
  recordHash,
  SCRIPT_SHA,
  SCRIPT_SOURCE,
  WIRE,
} from './raw-calls.js';

const ID = 'JOB0KHTOWnGLuC';
const Q = keysOf('q');
const ROW = Q.row(ID);
const PENDING = Q.pending;
const SLOT = Q.slots[0] as string;
/** A key under the `dedupe` prefix other than the four record slots (the retired per-key record's name): no grant. */
const NOT_A_SLOT = `emq:{q}:dedupe:${recordHash('http', 'protected')}`;

const NOPERM = /^NOPERM /;
/** A refusal inside a script: the ACL checks each command the Lua calls. */
const IN_SCRIPT = /^ERR ACL failure in script: /;
const UNKNOWN = /^ERR unknown command/;
type Case = readonly [what: string, command: readonly string[], refused?: RegExp];

/** Lua a script-family user could load itself: each call is held to its own permissions. */
const OWN_LUA = {
  del: "return redis.call('DEL', KEYS[1])",
  setFence: "return redis.call('SET', '{emq}:version', '2')",
  readOther: "return redis.call('GET', 'other')",
};
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** What neither user may do, on any kind; `absent` marks what a Serverless-like server lacks. */
function never(kind: ServerKind): Case[] {
  const absent = kind.family === 'script' ? UNKNOWN : NOPERM;
  return [
    ['EVAL', ['EVAL', 'return 1', '0']],
    ['EVALSHA on a key outside the queues', ['EVALSHA', SCRIPT_SHA, '1', 'other', 'version']],
    ['EVALSHA on {emq}:version', ['EVALSHA', SCRIPT_SHA, '1', FENCE_KEY, 'version']],
    ['FUNCTION FLUSH', ['FUNCTION', 'FLUSH'], absent],
    ['FUNCTION DELETE', ['FUNCTION', 'DELETE', 'emq'], absent],
    ['FUNCTION DUMP', ['FUNCTION', 'DUMP'], absent],
    ['SCRIPT FLUSH', ['SCRIPT', 'FLUSH']],
    ['SCRIPT KILL', ['SCRIPT', 'KILL']],
    ['SCAN', ['SCAN', '0']],
    ['KEYS', ['KEYS', '*']],
    ['DEL of a job row', ['DEL', ROW]],
    ['DEL of a pending set', ['DEL', PENDING]],
    ['DEL of {emq}:version', ['DEL', FENCE_KEY]],
    ['EXPIRE of a pending set', ['EXPIRE', PENDING, '1']],
    ['PEXPIRE of a job row', ['PEXPIRE', ROW, '1']],
    ['PEXPIRE of {emq}:version', ['PEXPIRE', FENCE_KEY, '1']],
    ['DUMP of a job row', ['DUMP', ROW]],
    ['UNLINK of a key under the dedupe prefix other than the record slots', ['UNLINK', NOT_A_SLOT]],
    ['UNLINK of a job row', ['UNLINK', ROW]],
    ['a key outside the queues (SET)', ['SET', 'other', '1']],
    ['a key outside the queues (GET)', ['GET', 'other']],
    ['a key outside the queues (HGETALL)', ['HGETALL', 'other']],
    [
      'FCALL on keys outside the queues',
      ['FCALL', 'emq_enqueue', '2', 'a', 'b', 'JOBx', 'p'],
      absent,
    ],
    ['FLUSHALL', ['FLUSHALL']],
    ['CONFIG SET', ['CONFIG', 'SET', 'appendonly', 'no']],
    ['DEBUG', ['DEBUG', 'DIGEST']],
    ['CLIENT LIST', ['CLIENT', 'LIST']],
    ['SUBSCRIBE', ['SUBSCRIBE', 'emq']],
    ['SHUTDOWN', ['SHUTDOWN', 'NOSAVE']],
  ];
}

function functionsRefusals(kind: ServerKind): Case[] {
  const absent = kind.family === 'script' ? UNKNOWN : NOPERM;
  const common: Case[] = [
    ...never(kind),
    ['FUNCTION LOAD', ['FUNCTION', 'LOAD', 'REPLACE', LIBRARY_SOURCE], absent],
    ['SET of {emq}:version', ['SET', FENCE_KEY, '2']],
    ['GET of a job row as a string', ['GET', ROW]],
    ['SET of a job row', ['SET', ROW, 'x']],
    ['ZADD to a job row', ['ZADD', ROW, '0', 'm']],
    ['HDEL of a job row field', ['HDEL', ROW, 'payload']],
    ['HDEL of a record', ['HDEL', SLOT, 'f']],
  ];
  switch (kind.family) {
    case 'native':
      return [
        ...common,
        ['EMQ.WIRE.INSTALL', ['EMQ.WIRE.INSTALL']],
        [
          'the old EMQ.WIRE INSTALL form',
          ['EMQ.WIRE', 'INSTALL'],
          /^ERR EMQ.WIRE INSTALL is retired/,
        ],
        ['EMQ.ENQUEUE on keys outside the queues', ['EMQ.ENQUEUE', '2', 'a', 'b', 'JOBx', 'p']],
        // The native family needs no inner command, so none is granted, and no FCALL.
        ['FCALL of the library', ['FCALL', 'emq_enqueue', '2', ROW, PENDING, ID, 'p']],
        ['EVALSHA of the library', ['EVALSHA', SCRIPT_SHA, '2', ROW, PENDING, 'enqueue', ID, 'p']],
        ['HSET of a job row', ['HSET', ROW, 'state', 'pending']],
        ['ZADD to a pending set', ['ZADD', PENDING, '0', ID]],
        [
          'SET of a key under the dedupe prefix other than the record slots',
          ['SET', NOT_A_SLOT, ID],
        ],
        ['HSET of a record slot', ['HSET', SLOT, 'f', 'v']],
      ];
    case 'function':
      return [
        ...common,
        ['EVALSHA of the library', ['EVALSHA', SCRIPT_SHA, '2', ROW, PENDING, 'enqueue', ID, 'p']],
        ['SCRIPT LOAD', ['SCRIPT', 'LOAD', 'return 1']],
        [
          'HSET of a key under the dedupe prefix other than the record slots',
          ['HSET', NOT_A_SLOT, 'f', 'v'],
        ],
        ['SET over a record slot', ['SET', SLOT, 'x']],
        ['UNLINK of a pending set', ['UNLINK', PENDING]],
        // emq purge is an operator's: its inner TYPE/HSCAN/HDEL of slots are not granted.
        ['FCALL emq_purge', ['FCALL', 'emq_purge', '4', ...Q.slots, '100', '0:0'], IN_SCRIPT],
      ];
    case 'script':
      return [
        ...common,
        ['WAIT (Serverless has none)', ['WAIT', '1', '10'], UNKNOWN],
        ['FCALL of the library', ['FCALL', 'emq_enqueue', '2', ROW, PENDING, ID, 'p'], UNKNOWN],
        [
          'HSET of a key under the dedupe prefix other than the record slots',
          ['HSET', NOT_A_SLOT, 'f', 'v'],
        ],
        ['SET over a record slot', ['SET', SLOT, 'x']],
        [
          'the library purge',
          ['EVALSHA', SCRIPT_SHA, '4', ...Q.slots, 'purge', '100', '0:0'],
          IN_SCRIPT,
        ],
        // SCRIPT LOAD lets it run Lua of its own, held to its own permissions.
        ['its own Lua deleting a row', ['EVALSHA', sha1(OWN_LUA.del), '1', ROW], IN_SCRIPT],
        [
          'its own Lua setting the identity',
          ['EVALSHA', sha1(OWN_LUA.setFence), '1', ROW],
          IN_SCRIPT,
        ],
        [
          'its own Lua reading another key',
          ['EVALSHA', sha1(OWN_LUA.readOther), '1', ROW],
          IN_SCRIPT,
        ],
      ];
  }
}

function installerRefusals(kind: ServerKind): Case[] {
  const absent = kind.family === 'script' ? UNKNOWN : NOPERM;
  return [
    ...never(kind),
    ['HSET of a job row', ['HSET', ROW, 'state', 'pending']],
    ['HGETALL of a job row', ['HGETALL', ROW]],
    ['ZRANGE of a pending set', ['ZRANGE', PENDING, '0', '-1']],
    ['FCALL of the library', ['FCALL', 'emq_enqueue', '2', ROW, PENDING, ID, 'p'], absent],
    [
      'EVALSHA of the library on the queue keys',
      ['EVALSHA', SCRIPT_SHA, '2', ROW, PENDING, 'enqueue', ID, 'p'],
    ],
    ['WAIT', ['WAIT', '1', '10'], absent],
    ...(kind.family === 'native'
      ? ([
          ['SET of {emq}:version (EMQ.WIRE.INSTALL writes it)', ['SET', FENCE_KEY, '2']],
          ['EMQ.ENQUEUE', ['EMQ.ENQUEUE', '2', ROW, PENDING, ID, 'p']],
          [
            'EMQ.ADMIT',
            ['EMQ.ADMIT', '6', PENDING, ...Q.slots, ROW, WIRE, '1000', `m${'A'.repeat(38)}`, 'p'],
          ],
        ] as const)
      : []),
  ];
}

/** Where refusals are tried (the primary that owns the queue's slot) and every primary. */
interface Target {
  readonly node: ServerHandle;
  readonly primaries: readonly ServerHandle[];
  readonly stop: () => Promise<void>;
}

const targets = new Map<ServerKind, { standalone: Target; cluster: Target }>();
let removeDir: () => Promise<void>;

/** Something to protect, as the harness: identity, library, and one queue's keys. */
async function protect(kind: ServerKind, handle: ServerHandle | ClusterHandle): Promise<void> {
  const primaries = handle.kind === 'cluster' ? await handle.primaries() : [handle];
  for (const node of primaries) {
    const admin = await node.client();
    if (kind.family === 'native') await admin.call('EMQ.WIRE.INSTALL');
    if (kind.family === 'script') {
      await admin.call('SCRIPT', 'LOAD', SCRIPT_SOURCE);
      for (const lua of Object.values(OWN_LUA)) await admin.call('SCRIPT', 'LOAD', lua);
    } else {
      await admin.call('FUNCTION', 'LOAD', 'REPLACE', LIBRARY_SOURCE);
    }
    admin.disconnect();
  }
  const admin = handle.kind === 'cluster' ? await handle.clusterClient() : await handle.client();
  if (kind.family !== 'native') await admin.set(FENCE_KEY, WIRE);
  await admin.hset(ROW, 'state', 'pending', 'attempts', '0', 'payload', 'p');
  await admin.zadd(PENDING, 0, ID);
  await admin.hset(SLOT, '~', String(Date.now() + 3_600_000), 'f', `${ID}:AAAAAAAAAAAAAAAA:1`);
  await admin.set(NOT_A_SLOT, ID, 'PX', 3_600_000);
  admin.disconnect();
}

beforeAll(async () => {
  const { dir, remove } = await aclDir();
  removeDir = remove;
  for (const kind of KINDS) {
    const options = { module: kind.module, extraArgs: await aclArgs(dir, kind) };
    const [server, cluster] = await Promise.all([startStandalone(options), startCluster(options)]);
    await Promise.all([protect(kind, server), protect(kind, cluster)]);
    const primaries = await cluster.primaries();
    targets.set(kind, {
      standalone: { node: server, primaries: [server], stop: () => server.stop() },
      cluster: { node: await ownerOf(primaries, ROW), primaries, stop: () => cluster.stop() },
    });
  }
});

afterAll(async () => {
  await Promise.all(
    [...targets.values()].flatMap(({ standalone, cluster }) => [standalone.stop(), cluster.stop()]),
  );
  await removeDir?.();
});

/** 'allowed', or the error's text. */
async function attempt(server: ServerHandle, username: string, command: readonly string[]) {
  const client = await server.client({ username, password: PASSWORD });
  try {
    const [name = '', ...args] = command;
    await client.call(name, ...args);
    return 'allowed';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    client.disconnect();
  }
}

/** Every primary's keyspace digest and library, as the harness's own user sees them. */
async function snapshot(kind: ServerKind, target: Target): Promise<unknown[]> {
  return Promise.all(
    target.primaries.map(async (node) => {
      const admin = await node.client();
      try {
        return [
          await admin.call('DEBUG', 'DIGEST'),
          kind.family === 'script'
            ? await admin.call('SCRIPT', 'EXISTS', SCRIPT_SHA)
            : await admin.call('FUNCTION', 'LIST', 'WITHCODE'),
        ];
      } finally {
        admin.disconnect();
      }
    }),
  );
}

describe.each(
  KINDS.flatMap((kind) => [
    { kind, topology: 'standalone' as const, name: `${kind.name}, standalone` },
    { kind, topology: 'cluster' as const, name: `${kind.name}, cluster` },
  ]),
)('on an $name', ({ kind, topology }) => {
  const target = (): Target => targets.get(kind)?.[topology] as Target;
  const server = (): ServerHandle => target().node;

  describe.each([
    ['the functions user', FUNCTIONS_USER, functionsRefusals(kind)],
    ['the installer user', INSTALLER_USER, installerRefusals(kind)],
  ] as const)('%s', (_who, username, cases) => {
    const rows = cases.map(([what, command, refused]) => ({ what, command, refused }));
    it.each(rows)('is refused $what', async ({ command, refused }) => {
      expect(await attempt(server(), username, command)).toMatch(refused ?? NOPERM);
    });

    it('leaves the dataset and the library as they were after every refusal', async () => {
      const before = await snapshot(kind, target());
      for (const [, command] of cases) await attempt(server(), username, command);
      expect(await snapshot(kind, target())).toEqual(before);
    });
  });

  if (kind.family !== 'native') {
    // The price of the function and script families, stated in the README: a library's inner
    // calls run under the caller's ACL, so its writes are granted on their own keys too.
    it('lets the functions user write a row field, a pending member and a record slot directly, and nothing wider', async () => {
      // The protected queue's slot, so a cluster's owner answers; undone below.
      const row = Q.row('JOB0KHTOWnGLuD');
      const slot = Q.slots[3] as string;
      const other = `emq:{q}:dedupe:${recordHash('http', 'direct')}`;
      const allowed = [
        ['HSET', row, 'state', 'pending'],
        ['ZADD', PENDING, '0', 'JOBx'],
        ['HSET', slot, 'f', 'v'],
        ['UNLINK', slot],
      ];
      const refused = [
        ['HDEL', row, 'state'],
        ['UNLINK', row],
        ['SET', other, 'JOBx', 'PX', '60000'],
        ['UNLINK', other],
        ['EXPIRE', slot, '1'],
        ['ZREM', PENDING, 'JOBx'],
      ];
      for (const command of allowed)
        expect(await attempt(server(), FUNCTIONS_USER, command)).toBe('allowed');
      for (const command of refused)
        expect(await attempt(server(), FUNCTIONS_USER, command)).toMatch(NOPERM);
      const admin = await server().client();
      await admin.del(row, other, slot);
      await admin.zrem(PENDING, 'JOBx');
      admin.disconnect();
    });
  }
});
