// Least privilege, refused: on each server kind, under the rules read from the synthesized
// template, the functions' user and the installer's user are refused everything the issue
// lists (EVAL, FUNCTION LOAD/FLUSH/DELETE, SCRIPT, SCAN/KEYS, DEL, EXPIRE, DUMP, writing
// `{emq}:version`, the install right, keys outside the queues), and every refusal leaves the
// dataset and the function libraries byte for byte as they were.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIBRARY_SOURCE } from '../../src/executors/library.js';
import { install } from '../../src/index.js';
import { connectTo } from '../support/emq.js';
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

const ROW = 'emq:{q}:job:JOB0KHTOWnGLuC';
const PENDING = 'emq:{q}:pending';
const DEDUPE = 'emq:{q}:dedupe:call:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const FENCE = '{emq}:version';

/** A refusal by the ACL; `retired` is the module's own answer to the old install form. */
const NOPERM = /^NOPERM /;
type Case = readonly [what: string, command: readonly string[], refused?: RegExp];

/** What neither user may do, on either kind. */
const NEVER: readonly Case[] = [
  ['EVAL', ['EVAL', 'return 1', '0']],
  ['EVALSHA', ['EVALSHA', 'e0e1f9fabfc9d4800c877a703b823ac0578ff8db', '0']],
  ['FUNCTION FLUSH', ['FUNCTION', 'FLUSH']],
  ['FUNCTION DELETE', ['FUNCTION', 'DELETE', 'emq']],
  ['FUNCTION DUMP', ['FUNCTION', 'DUMP']],
  ['SCRIPT FLUSH', ['SCRIPT', 'FLUSH']],
  ['SCRIPT LOAD', ['SCRIPT', 'LOAD', 'return 1']],
  ['SCAN', ['SCAN', '0']],
  ['KEYS', ['KEYS', '*']],
  ['DEL of a job row', ['DEL', ROW]],
  ['DEL of a pending set', ['DEL', PENDING]],
  ['DEL of {emq}:version', ['DEL', FENCE]],
  ['EXPIRE of a pending set', ['EXPIRE', PENDING, '1']],
  ['PEXPIRE of a job row', ['PEXPIRE', ROW, '1']],
  ['DUMP of a job row', ['DUMP', ROW]],
  ['UNLINK of a dedupe record', ['UNLINK', DEDUPE]],
  ['a key outside the queues (SET)', ['SET', 'other', '1']],
  ['a key outside the queues (GET)', ['GET', 'other']],
  ['a key outside the queues (HGETALL)', ['HGETALL', 'other']],
  ['FCALL on keys outside the queues', ['FCALL', 'emq_enqueue', '2', 'a', 'b', 'JOBx', 'p']],
  ['FLUSHALL', ['FLUSHALL']],
  ['CONFIG SET', ['CONFIG', 'SET', 'appendonly', 'no']],
  ['DEBUG', ['DEBUG', 'DIGEST']],
  ['CLIENT LIST', ['CLIENT', 'LIST']],
  ['SUBSCRIBE', ['SUBSCRIBE', 'emq']],
  ['SHUTDOWN', ['SHUTDOWN', 'NOSAVE']],
];

function functionsRefusals(kind: ServerKind): Case[] {
  return [
    ...NEVER,
    ['FUNCTION LOAD', ['FUNCTION', 'LOAD', 'REPLACE', LIBRARY_SOURCE]],
    ['SET of {emq}:version', ['SET', FENCE, '2']],
    ['GET of a job row as a string', ['GET', ROW]],
    ['SET of a job row', ['SET', ROW, 'x']],
    ['ZADD to a job row', ['ZADD', ROW, '0', 'm']],
    ['HSET of a dedupe record', ['HSET', DEDUPE, 'f', 'v']],
    ...(kind.module
      ? ([
          ['EMQ.WIRE.INSTALL', ['EMQ.WIRE.INSTALL']],
          [
            'the old EMQ.WIRE INSTALL form',
            ['EMQ.WIRE', 'INSTALL'],
            /^ERR EMQ.WIRE INSTALL is retired/,
          ],
          ['EMQ.ENQUEUE on keys outside the queues', ['EMQ.ENQUEUE', '2', 'a', 'b', 'JOBx', 'p']],
          // The native family needs no inner command, so none is granted.
          [
            'FCALL of the library',
            ['FCALL', 'emq_enqueue', '2', ROW, PENDING, 'JOB0KHTOWnGLuC', 'p'],
          ],
          ['HSET of a job row', ['HSET', ROW, 'state', 'pending']],
          ['ZADD to a pending set', ['ZADD', PENDING, '0', 'JOB0KHTOWnGLuC']],
          ['SET of a dedupe record', ['SET', DEDUPE, 'JOB0KHTOWnGLuC']],
        ] as const)
      : []),
  ];
}

function installerRefusals(kind: ServerKind): Case[] {
  return [
    ...NEVER,
    ['HSET of a job row', ['HSET', ROW, 'state', 'pending']],
    ['HGETALL of a job row', ['HGETALL', ROW]],
    ['ZRANGE of a pending set', ['ZRANGE', PENDING, '0', '-1']],
    ['FCALL of the library', ['FCALL', 'emq_enqueue', '2', ROW, PENDING, 'JOB0KHTOWnGLuC', 'p']],
    ['WAIT', ['WAIT', '1', '10']],
    ...(kind.module
      ? ([
          ['SET of {emq}:version (EMQ.WIRE.INSTALL writes it)', ['SET', FENCE, '2']],
          ['EMQ.ENQUEUE', ['EMQ.ENQUEUE', '2', ROW, PENDING, 'JOB0KHTOWnGLuC', 'p']],
          ['EMQ.ADMIT', ['EMQ.ADMIT', '3', ROW, PENDING, DEDUPE, 'JOB0KHTOWnGLuC', 'p', '1000']],
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

/** Something to protect: the identity, the library and one queue's keys. */
async function protect(handle: ServerHandle | ClusterHandle): Promise<void> {
  await install(await connectTo(handle, { checkFence: false }));
  const admin = handle.kind === 'cluster' ? await handle.clusterClient() : await handle.client();
  await admin.hset(ROW, 'state', 'pending', 'attempts', '0', 'payload', 'p');
  await admin.zadd(PENDING, 0, 'JOB0KHTOWnGLuC');
  await admin.set(DEDUPE, 'JOB0KHTOWnGLuC', 'PX', 3_600_000);
  admin.disconnect();
}

async function ownerOf(primaries: readonly ServerHandle[]): Promise<ServerHandle> {
  for (const node of primaries) {
    const admin = await node.client();
    const owns = await admin.exists(ROW).then(
      (count) => count === 1,
      () => false,
    );
    admin.disconnect();
    if (owns) return node;
  }
  throw new Error('no primary holds the protected row');
}

beforeAll(async () => {
  const { dir, remove } = await aclDir();
  removeDir = remove;
  for (const kind of KINDS) {
    const options = { module: kind.module, extraArgs: await aclArgs(dir, kind) };
    const [server, cluster] = await Promise.all([startStandalone(options), startCluster(options)]);
    await Promise.all([protect(server), protect(cluster)]);
    const primaries = await cluster.primaries();
    targets.set(kind, {
      standalone: { node: server, primaries: [server], stop: () => server.stop() },
      cluster: { node: await ownerOf(primaries), primaries, stop: () => cluster.stop() },
    });
  }
});

afterAll(async () => {
  await Promise.all(
    [...targets.values()].flatMap(({ standalone, cluster }) => [standalone.stop(), cluster.stop()]),
  );
  await removeDir?.();
});

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

/** Every primary's keyspace digest and libraries, as the harness's own user sees them. */
async function snapshot(target: Target): Promise<unknown[]> {
  return Promise.all(
    target.primaries.map(async (node) => {
      const admin = await node.client();
      try {
        return [
          await admin.call('DEBUG', 'DIGEST'),
          await admin.call('FUNCTION', 'LIST', 'WITHCODE'),
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

    it('leaves the dataset and the libraries as they were after every refusal', async () => {
      const before = await snapshot(target());
      for (const [, command] of cases) await attempt(server(), username, command);
      expect(await snapshot(target())).toEqual(before);
    });
  });

  if (!kind.module) {
    // The price of the function family, stated in the README: a function's inner calls run
    // under the caller's ACL, so its write commands are granted on their own keys too.
    it('lets the functions user write a row field, a pending member and a dedupe record directly, and nothing wider', async () => {
      // The protected queue's slot, so a cluster's owner answers; undone below.
      const row = 'emq:{q}:job:JOB0KHTOWnGLuD';
      const dedupe = 'emq:{q}:dedupe:x';
      const results = [
        await attempt(server(), FUNCTIONS_USER, ['HSET', row, 'state', 'pending']),
        await attempt(server(), FUNCTIONS_USER, ['ZADD', PENDING, '0', 'JOBx']),
        await attempt(server(), FUNCTIONS_USER, ['SET', dedupe, 'JOBx']),
        await attempt(server(), FUNCTIONS_USER, ['HDEL', row, 'state']),
      ];
      expect(results.slice(0, 3)).toEqual(['allowed', 'allowed', 'allowed']);
      expect(results[3]).toMatch(NOPERM);
      const admin = await server().client();
      await admin.del(row, dedupe);
      await admin.zrem(PENDING, 'JOBx');
      admin.disconnect();
    });
  }
});
