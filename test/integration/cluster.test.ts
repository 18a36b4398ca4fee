// A 3-primary cluster with the module: the fence on every primary, and batches that reach
// every node with no MOVED redirection.
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install } from '../../src/connection/fence.js';
import { readNodes } from '../../src/connection/node-reading.js';
import { type Connection, EmqError, enqueueMany, readJob } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import { queueSlot } from '../../src/keyspace/keyspace.js';
import { connectTo, jobsOf } from '../support/emq.js';
import { type ClusterHandle, randomQueue, startCluster } from '../support/servers.js';

let cluster: ClusterHandle;
let native: Connection;
let script: Connection;

beforeAll(async () => {
  cluster = await startCluster({ primaries: 3, module: true });
  await install(await connectTo(cluster, { checkFence: false }));
  native = await connectTo(cluster, { family: 'native' });
  script = await connectTo(cluster, { family: 'function' });
});

afterAll(() => cluster.stop());

async function movedCount(nodes: Valkey[]): Promise<number> {
  let total = 0;
  for (const node of nodes) {
    const info = await node.info('errorstats');
    total += Number(/errorstat_MOVED:count=(\d+)/.exec(info)?.[1] ?? 0);
  }
  return total;
}

describe('the fence on a cluster', () => {
  it('is installed on every primary, each holding its own copy', async () => {
    const readings = await readNodes(native);
    expect(readings).toHaveLength(3);
    for (const reading of readings) {
      expect(reading).toMatchObject({ module: '1', value: '1', ok: true });
    }
    for (const node of native.primaries()) {
      expect(await node.call('EMQ.WIRE')).toEqual(['1', '1']);
    }
  });
});

describe.each([
  ['native', () => native],
  ['function', () => script],
])('enqueueMany through the %s family', (_, conn) => {
  it('writes 100 queues spread over every primary with no MOVED redirection', async () => {
    const queues = Array.from({ length: 100 }, () => randomQueue('spread'));
    const owners = new Set(queues.map((queue) => conn().nodeOf(queueSlot(queue))));
    expect(owners.size).toBe(3);

    const before = await movedCount(conn().primaries());
    const results = await enqueueMany(
      conn(),
      queues.map((queue, i) => ({ queue, payload: `job ${i}` })),
    );
    expect(await movedCount(conn().primaries())).toBe(before);

    for (const [i, result] of results.entries()) {
      expect(result).toMatchObject({ queue: queues[i], status: 'enqueued' });
      if (result instanceof EmqError) throw result;
      const row = await readJob(conn(), result.queue, result.id);
      expect(row?.payload.toString()).toBe(`job ${i}`);
      expect(await jobsOf(conn(), result.queue)).toEqual({
        rows: [result.id],
        pending: [result.id],
      });
    }
  });

  it('returns results in input order when a batch mixes valid and invalid requests', async () => {
    const queue = randomQueue('mixed');
    const results = await enqueueMany(conn(), [
      { queue, payload: 'a' },
      { queue: 'bad:queue', payload: 'b' },
      { queue, id: mintId(), payload: 'c' },
      { queue, id: 'not-an-id', payload: 'd' },
    ]);
    expect(results.map((r) => (r instanceof EmqError ? r.code : r.status))).toEqual([
      'enqueued',
      'EMQ_INVALID_QUEUE',
      'enqueued',
      'EMQ_INVALID_ID',
    ]);
    expect((await jobsOf(conn(), queue)).rows).toHaveLength(2);
  });
});
