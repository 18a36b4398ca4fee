// The module's effects replicate as plain commands (docs/wire.md, "admit" step 8): a replica
// WITHOUT the module follows a primary with it, the replication stream (MONITOR on the replica) and
// the primary's AOF hold HSET, ZADD, UNLINK and SET ... KEEPTTL and never an EMQ.* command, and
// the replica's dataset is the primary's (DEBUG DIGEST, and key by key DUMP and expiry). A
// duplicate's touch makes a later WAIT cover the original write.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LOOPBACK,
  randomQueue,
  type ServerHandle,
  startStandalone,
} from '../../test/support/servers.js';
import { waitFor } from '../../test/support/wait.js';
import { admit, admitKeys, admitMany, contents, jobId, recordHash, slotKeys } from './helpers.js';

let primary: ServerHandle;
let replica: ServerHandle;
let writer: Valkey;
const stream: string[][] = [];

async function linked(): Promise<void> {
  const client = await replica.client();
  try {
    await waitFor('the replica to link', 30_000, async () => {
      const info = await client.info('replication');
      return info.includes('master_link_status:up') ? undefined : 'link not up';
    });
  } finally {
    client.disconnect();
  }
}

beforeAll(async () => {
  primary = await startStandalone({
    module: true,
    extraArgs: ['--appendonly', 'yes', '--appendfsync', 'always'],
  });
  replica = await startStandalone({ extraArgs: ['--replicaof', LOOPBACK, String(primary.port)] });
  await linked();
  const monitor = await (await replica.client()).monitor();
  monitor.on('monitor', (_time: string, args: string[]) => stream.push(args));
  writer = await primary.client();
});
afterAll(async () => {
  await Promise.all([replica?.stop(), primary?.stop()]);
});

/** The commands of an AOF file, as argument lists (RESP arrays of bulk strings). */
function parseAof(text: string): string[][] {
  const commands: string[][] = [];
  const lines = text.split('\r\n');
  for (let i = 0; i < lines.length; i++) {
    const head = lines[i] ?? '';
    if (!head.startsWith('*')) continue;
    const count = Number(head.slice(1));
    const args: string[] = [];
    for (let a = 0; a < count; a++) args.push(lines[i + 2 + 2 * a] ?? '');
    commands.push(args);
    i += 2 * count;
  }
  return commands;
}

async function primaryAof(): Promise<string[][]> {
  const dir = join(primary.dir, 'appendonlydir');
  const files = (await readdir(dir)).filter((name) => name.endsWith('.incr.aof'));
  const texts = await Promise.all(files.map((name) => readFile(join(dir, name), 'latin1')));
  return texts.flatMap(parseAof);
}

const names = (commands: string[][]) =>
  new Set(commands.map((args) => (args[0] ?? '').toUpperCase()));

/** The replica's DEBUG DIGEST once it has applied everything the primary wrote. */
async function caughtUp(): Promise<void> {
  expect(await writer.call('WAIT', '1', '10000')).toBe(1);
  const reader = await replica.client();
  await waitFor("the replica to hold the primary's dataset", 30_000, async () => {
    const [mine, theirs] = await Promise.all([
      writer.call('DEBUG', 'DIGEST'),
      reader.call('DEBUG', 'DIGEST'),
    ]);
    return mine === theirs ? undefined : `${String(mine)} vs ${String(theirs)}`;
  });
  expect(await contents(reader)).toEqual(await contents(writer));
}

describe('a replica without the module, following a primary with it', () => {
  const q = randomQueue('repl');
  const [first, second, third] = [jobId(1), jobId(2), jobId(3)];
  const keys = admitKeys(q, first);
  const field = recordHash('key').slice(0, 22);

  it('receives the fence, the admissions, the purges and the touches as plain commands', async () => {
    expect(await writer.call('EMQ.WIRE.INSTALL')).toBe('OK');
    // Every slot dead first, so the call unlinks the target before writing it and the one after.
    for (const slot of slotKeys(q)) await writer.hset(slot, 'gone', 'x', '~', '5');
    expect(
      await admitMany(writer, q, [
        { id: first, key: 'key', payload: 'payload' },
        { id: second, key: 'key2', payload: 'p2' },
      ]),
    ).toEqual([
      [1, first],
      [1, second],
    ]);
    // A call that only answers 0 from a record: its touch is an HSET of it unchanged.
    expect(await admit(writer, q, third, 'key', 'payload')).toEqual([0, first]);
    await caughtUp();

    const reader = await replica.client();
    expect(await reader.get('{emq}:version')).toBe('1');
    expect(await reader.hget(keys.row, 'payload')).toBe('payload');
    await waitFor('the replica to apply the last touch', 30_000, async () =>
      stream.filter((args) => args[0] === 'HSET' && args[2] === field).length >= 2
        ? undefined
        : 'not yet',
    );
    const seen = names(stream);
    expect([...seen].filter((name) => name.startsWith('EMQ'))).toEqual([]);
    expect(stream).toContainEqual(['SET', '{emq}:version', '1']);
    expect(stream).toContainEqual([
      'HSET',
      keys.row,
      'state',
      'pending',
      'attempts',
      '0',
      'payload',
      'payload',
    ]);
    expect(stream).toContainEqual(['ZADD', keys.pending, '0', first, '0', second]);
    expect(stream.filter((args) => args[0] === 'UNLINK').length).toBe(2);
    const slotWrite = stream.find((args) => args[0] === 'HSET' && args[2] === field);
    expect(slotWrite?.slice(2, 3)).toEqual([field]);
    expect(slotWrite?.[4]).toBe(recordHash('key2').slice(0, 22));
    expect(slotWrite?.[6]).toBe('~');
    // The touch: HSET <the record's slot> <field> <its value, unchanged>, alone.
    const touches = stream.filter((args) => args[0] === 'HSET' && args[2] === field);
    expect(touches.slice(-1)).toEqual([['HSET', slotWrite?.[1], field, slotWrite?.[3]]]);
  });

  it('a batch of calls of many queues, dead slots purged, leaves the replica byte-identical', async () => {
    for (let b = 0; b < 20; b++) {
      const queue = randomQueue('batch');
      if (b % 4 === 0)
        for (const slot of slotKeys(queue)) await writer.hset(slot, 'gone', 'x', '~', '5');
      const admissions = Array.from({ length: 10 }, (_, i) => ({
        id: jobId(1000 + b * 10 + i),
        key: `b${b}-${i % 7}`,
        payload: i % 3 === 0 ? 'x'.repeat(100) : `p${i}`,
      }));
      await admitMany(writer, queue, admissions);
      await admitMany(writer, queue, admissions.slice(0, 3));
    }
    await caughtUp();
  });

  it('the AOF holds the same plain commands and no EMQ.* command', async () => {
    // The AOF is written in the event loop, not before the reply: wait for the last command.
    let commands: string[][] = [];
    await waitFor('the AOF to hold the first call', 30_000, async () => {
      commands = await primaryAof();
      return commands.some((args) => args[0] === 'ZADD' && args[3] === first)
        ? undefined
        : 'not yet';
    });
    const seen = names(commands);
    expect([...seen].filter((name) => name.startsWith('EMQ'))).toEqual([]);
    expect(commands).toContainEqual([
      'HSET',
      keys.row,
      'state',
      'pending',
      'attempts',
      '0',
      'payload',
      'payload',
    ]);
    expect(commands).toContainEqual(['ZADD', keys.pending, '0', first, '0', second]);
    expect(commands.some((args) => args[0] === 'UNLINK')).toBe(true);
  });

  it("a duplicate answer's touch makes WAIT cover the original write", async () => {
    const wq = randomQueue('wait');
    const id = jobId(4);
    await replica.kill('SIGSTOP');
    try {
      expect(await admit(writer, wq, id, 'k', 'p')).toEqual([1, id]);
      // A fresh connection has written nothing: without the touch its WAIT would count the
      // stopped replica at once, though the row never reached it.
      const late = await primary.client();
      expect(await admit(late, wq, jobId(5), 'k', 'p')).toEqual([0, id]);
      expect(await late.call('WAIT', '1', '300')).toBe(0);
      await replica.kill('SIGCONT');
      expect(await late.call('WAIT', '1', '10000')).toBe(1);
      const reader = await replica.client();
      expect(await reader.hget(admitKeys(wq, id).row, 'payload')).toBe('p');
    } finally {
      if (replica.running) await replica.kill('SIGCONT');
    }
  });
});
