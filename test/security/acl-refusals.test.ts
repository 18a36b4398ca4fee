// Least privilege, refused: on each server kind, under the rules read from the synthesized
// template, the functions' user and the installer's user are refused everything the issue
// lists (EVAL, FUNCTION LOAD/FLUSH/DELETE, SCRIPT, SCAN/KEYS, DEL, EXPIRE, DUMP, writing
// `{emq}:version`, the install right, keys outside the queues), and every refusal leaves the
// dataset and the function libraries byte for byte as they were.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIBRARY_SOURCE } from '../../src/executors/library.js';
import { installFence } from '../../src/index.js';
import { connectTo } from '../support/emq.js';
import { type ServerHandle, startStandalone } from '../support/servers.js';
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

const servers = new Map<ServerKind, ServerHandle>();
let removeDir: () => Promise<void>;

beforeAll(async () => {
  const { dir, remove } = await aclDir();
  removeDir = remove;
  for (const kind of KINDS) {
    const server = await startStandalone({
      module: kind.module,
      extraArgs: await aclArgs(dir, kind),
    });
    servers.set(kind, server);
    // Something to protect: the identity, the library and one queue's keys.
    await installFence(await connectTo(server, { checkFence: false }));
    const admin = await server.client();
    await admin.hset(ROW, 'state', 'pending', 'attempts', '0', 'payload', 'p');
    await admin.zadd(PENDING, 0, 'JOB0KHTOWnGLuC');
    await admin.set(DEDUPE, 'JOB0KHTOWnGLuC', 'PX', 3_600_000);
    admin.disconnect();
  }
});

afterAll(async () => {
  await Promise.all([...servers.values()].map((server) => server.stop()));
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

/** The keyspace digest and the libraries, as the harness's own user sees them. */
async function snapshot(server: ServerHandle): Promise<unknown[]> {
  const admin = await server.client();
  try {
    return [await admin.call('DEBUG', 'DIGEST'), await admin.call('FUNCTION', 'LIST', 'WITHCODE')];
  } finally {
    admin.disconnect();
  }
}

describe.each(KINDS)('on an $name', (kind) => {
  const server = (): ServerHandle => servers.get(kind) as ServerHandle;

  describe.each([
    ['the functions user', FUNCTIONS_USER, functionsRefusals(kind)],
    ['the installer user', INSTALLER_USER, installerRefusals(kind)],
  ] as const)('%s', (_who, username, cases) => {
    const rows = cases.map(([what, command, refused]) => ({ what, command, refused }));
    it.each(rows)('is refused $what', async ({ command, refused }) => {
      expect(await attempt(server(), username, command)).toMatch(refused ?? NOPERM);
    });

    it('leaves the dataset and the libraries as they were after every refusal', async () => {
      const before = await snapshot(server());
      for (const [, command] of cases) await attempt(server(), username, command);
      expect(await snapshot(server())).toEqual(before);
    });
  });

  if (!kind.module) {
    // The price of the function family, stated in the README: a function's inner calls run
    // under the caller's ACL, so its write commands are granted on their own keys too.
    it('lets the functions user write a row field, a pending member and a dedupe record directly, and nothing wider', async () => {
      const queue = 'acl-cost';
      const row = `emq:{${queue}}:job:JOB0KHTOWnGLuD`;
      const results = [
        await attempt(server(), FUNCTIONS_USER, ['HSET', row, 'state', 'pending']),
        await attempt(server(), FUNCTIONS_USER, ['ZADD', `emq:{${queue}}:pending`, '0', 'JOBx']),
        await attempt(server(), FUNCTIONS_USER, ['SET', `emq:{${queue}}:dedupe:x`, 'JOBx']),
        await attempt(server(), FUNCTIONS_USER, ['HDEL', row, 'state']),
      ];
      expect(results.slice(0, 3)).toEqual(['allowed', 'allowed', 'allowed']);
      expect(results[3]).toMatch(NOPERM);
      const admin = await server().client();
      await admin.del(row, `emq:{${queue}}:pending`, `emq:{${queue}}:dedupe:x`);
      admin.disconnect();
    });
  }
});
