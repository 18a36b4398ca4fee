// The module's effects replicate as plain commands (SPEC §4 step 8, §10): a replica WITHOUT
// the module follows a primary with it, the replication stream (MONITOR on the replica) and
// the primary's AOF hold HSET/ZADD/SET and never an EMQ.* command, and the replica's keys
// are byte-for-byte the primary's. A duplicate's touch makes a later WAIT cover the original.
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
import { admit, admitKeys, enqueue, jobId, snapshot } from './helpers.js';

let primary: ServerHandle;
let replica: ServerHandle;
let writer: Valkey;
const stream: string[][] = [];

async function linked(): Promise<void> {
  const client = await replica.client();
  try {
    await waitFor('the replica to link', 15_000, async () => {
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

describe('a replica without the module, following a primary with it', () => {
  const q = randomQueue('repl');
  const [first, second, caller] = [jobId(1), jobId(2), jobId(3)];
  const keys = admitKeys(q, first, 'key');

  it('receives the fence, the admissions and the touch as plain commands', async () => {
    expect(await writer.call('EMQ.WIRE.INSTALL')).toBe('OK');
    expect(await admit(writer, q, first, 'key', 'payload', 60_000)).toEqual([1, first]);
    expect(await admit(writer, q, second, 'key', 'payload')).toEqual([0, first]);
    expect(await enqueue(writer, q, caller, 'by id')).toBe(1);
    expect(await writer.call('WAIT', '1', '10000')).toBe(1);

    // Every key, DUMP and absolute expiry, is the primary's.
    const reader = await replica.client();
    expect(await snapshot(reader)).toEqual(await snapshot(writer));
    expect(await reader.get('{emq}:version')).toBe('1');
    expect(await reader.hget(keys.row, 'payload')).toBe('payload');

    await waitFor('the replica to apply the last command', 10_000, async () =>
      stream.some((args) => args[0] === 'ZADD' && args[3] === caller) ? undefined : 'not yet',
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
    expect(stream).toContainEqual(['ZADD', keys.pending, '0', first]);
    expect(stream).toContainEqual(['SET', keys.dedupe, first, 'KEEPTTL']);
    expect(
      stream.find((args) => args[0] === 'SET' && args[1] === keys.dedupe && args[3] === 'PXAT'),
    ).toBeDefined();
  });

  it('the AOF holds the same plain commands and no EMQ.* command', async () => {
    // The AOF is written in the event loop, not before the reply: wait for the last command.
    let commands: string[][] = [];
    await waitFor('the AOF to hold the last command', 10_000, async () => {
      commands = await primaryAof();
      return commands.some((args) => args[0] === 'ZADD' && args[3] === caller)
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
    expect(commands).toContainEqual(['ZADD', keys.pending, '0', first]);
    expect(commands).toContainEqual(['SET', keys.dedupe, first, 'KEEPTTL']);
    expect(
      commands.find((args) => args[0] === 'SET' && args[1] === keys.dedupe)?.slice(3, 4),
    ).toEqual(['PXAT']);
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
      expect(await reader.hget(admitKeys(wq, id, 'k').row, 'payload')).toBe('p');
    } finally {
      if (replica.running) await replica.kill('SIGCONT');
    }
  });
});
