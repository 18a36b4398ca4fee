// Cluster helpers for the module's tests: which node owns a queue, the fence on every primary.
import calculateSlot from 'cluster-key-slot';
import type { Valkey } from 'iovalkey';
import { type ClusterHandle, randomQueue, type ServerHandle } from '../../test/support/servers.js';

export interface Primary {
  readonly node: ServerHandle;
  readonly client: Valkey;
}

/** A client on every current primary, with the fence installed on each (node-local copies). */
export async function fencedPrimaries(cluster: ClusterHandle): Promise<Primary[]> {
  const nodes = await cluster.primaries();
  return Promise.all(
    nodes.map(async (node) => {
      const client = await node.client();
      await client.call('EMQ.WIRE.INSTALL');
      return { node, client };
    }),
  );
}

export function queueSlot(queue: string): number {
  return calculateSlot(queue);
}

/** The port of the node serving `slot`, as `witness` sees the cluster. */
export async function ownerPort(witness: Valkey, slot: number): Promise<number> {
  const ranges = (await witness.call('CLUSTER', 'SLOTS')) as Array<
    [number, number, [string, number]]
  >;
  const range = ranges.find(([start, end]) => slot >= start && slot <= end);
  if (range === undefined) throw new Error(`no node serves slot ${slot}`);
  return range[2][1];
}

/** A fresh queue whose slot `port`'s node serves. */
export async function queueOn(witness: Valkey, port: number, prefix = 'on'): Promise<string> {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const queue = randomQueue(prefix);
    if ((await ownerPort(witness, queueSlot(queue))) === port) return queue;
  }
  throw new Error(`no queue found on port ${port} in 1000 tries`);
}
