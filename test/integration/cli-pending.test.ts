// `emq pending` on a real server: ids in id order, the limit, the count of the rest, and a
// pending key of the wrong type.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install } from '../../src/connection/fence.js';
import { type Connection, enqueue } from '../../src/index.js';
import { pendingKey } from '../../src/keyspace/keyspace.js';
import { assertBuilt, emq } from '../support/cli.js';
import { connectTo } from '../support/emq.js';
import {
  type ClusterHandle,
  randomQueue,
  type ServerHandle,
  startCluster,
  startStandalone,
} from '../support/servers.js';

let server: ServerHandle;
let cluster: ClusterHandle;
let connection: Connection;

beforeAll(async () => {
  assertBuilt();
  [server, cluster] = await Promise.all([
    startStandalone({ module: true }),
    startCluster({ module: true }),
  ]);
  connection = await connectTo(server, { checkFence: false });
  await install(connection);
  await install(await connectTo(cluster, { checkFence: false }));
});

afterAll(async () => {
  await Promise.all([server?.stop(), cluster?.stop()]);
});

const at = () => ['--url', server.url];

async function seeded(count: number): Promise<{ queue: string; ids: string[] }> {
  const queue = randomQueue();
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    ids.push((await enqueue(connection, { queue, payload: `job ${index}` })).id);
  }
  return { queue, ids };
}

describe('emq pending', () => {
  it('prints every pending id, in id order, one per line', async () => {
    const { queue, ids } = await seeded(3);
    const run = await emq(['pending', queue, ...at()]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(ids.map((id) => `${id}\n`).join(''));
    expect(run.stderr).toBe('');
  });

  it('stops at --limit and says on stderr how many more are pending', async () => {
    const { queue, ids } = await seeded(5);
    const run = await emq(['pending', queue, '--limit', '2', ...at()]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${ids[0]}\n${ids[1]}\n`);
    expect(run.stderr).toContain(`3 more pending in ${queue} (5 in all)`);
  });

  it('prints ids and the total with --json', async () => {
    const { queue, ids } = await seeded(3);
    const run = await emq(['pending', queue, '--limit', '1', '--json', ...at()]);
    expect(JSON.parse(run.stdout)).toEqual({ queue, ids: [ids[0]], total: 3 });
  });

  it('prints nothing for an empty queue and exits 0', async () => {
    const run = await emq(['pending', randomQueue(), '--json', ...at()]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ids: [], total: 0 });
  });

  it('exits 2 for a limit that is not a positive whole number', async () => {
    for (const limit of ['0', '-1', '2.5', 'ten']) {
      const run = await emq(['pending', randomQueue(), '--limit', limit, ...at()]);
      expect(run.code, limit).toBe(2);
      expect(run.stderr).toContain("option '--limit <n>' argument");
    }
  });

  it('exits 1 with EMQ_WRONGTYPE when the pending key is not a sorted set', async () => {
    const queue = randomQueue();
    await connection.client.set(pendingKey(queue), 'not a zset');
    const run = await emq(['pending', queue, ...at()]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^emq: EMQ_WRONGTYPE: /);
  });

  it('lists what emq enqueue admitted on a cluster', async () => {
    const queue = randomQueue();
    const on = ['--url', cluster.seeds.join(','), '--cluster'];
    const ids: string[] = [];
    for (const payload of ['a', 'b']) {
      const run = await emq(['enqueue', queue, payload, '--json', ...on]);
      ids.push((JSON.parse(run.stdout) as { id: string }).id);
    }
    const run = await emq(['pending', queue, '--json', ...on]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ queue, ids, total: 2 });
  });
});
