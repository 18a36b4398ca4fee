/**
 * Makes a cluster of a target's nodes over their unix sockets, as valkey-cli --cluster create
 * does over TCP (which a TLS-only node with renamed commands would need TLS and more for):
 * each primary takes its range of slots and its own config epoch, every node meets node 0 on
 * its bus port, and once all know each other every replica follows its primary. Replication
 * runs through the primaries' proxies (the announced port), so they must be listening first.
 */
import { parseClusterNodes } from '../cluster-nodes.js';
import { BUS_OFFSET, LOOPBACK } from '../ports.js';
import { stringReply } from '../probe.js';
import type { ValkeyServer } from '../server.js';
import { waitFor } from '../wait.js';

const SLOTS = 16_384;

export async function formCluster(
  nodes: readonly ValkeyServer[],
  shards: number,
  timeoutMs: number,
): Promise<void> {
  const primaries = nodes.slice(0, shards);
  await Promise.all(
    primaries.map((node, index) =>
      node.probe(async (connection) => {
        const first = Math.floor((SLOTS * index) / shards);
        const last = Math.floor((SLOTS * (index + 1)) / shards) - 1;
        await connection.call('CLUSTER', 'ADDSLOTSRANGE', String(first), String(last));
        await connection.call('CLUSTER', 'SET-CONFIG-EPOCH', String(index + 1));
      }),
    ),
  );
  const [seed, ...others] = nodes;
  if (seed === undefined) throw new Error('a cluster needs a node');
  await Promise.all(
    others.map((node) =>
      node.probe((connection) =>
        connection.call(
          'CLUSTER',
          'MEET',
          LOOPBACK,
          String(seed.port),
          String(seed.port + BUS_OFFSET),
        ),
      ),
    ),
  );
  const ids = await Promise.all(
    nodes.map((node) => node.probe((c) => stringReply(c.call('CLUSTER', 'MYID')))),
  );
  await waitFor('every node to know every other', timeoutMs, async () => {
    for (const node of nodes) {
      const entries = parseClusterNodes(
        await node.probe((c) => stringReply(c.call('CLUSTER', 'NODES'))),
      );
      const met = entries.filter(
        (entry) => !entry.flags.some((flag) => flag === 'handshake' || flag === 'noaddr'),
      );
      if (met.length !== nodes.length) return `${node.url} knows ${met.length} of ${nodes.length}`;
    }
    return undefined;
  });
  await Promise.all(
    nodes
      .slice(shards)
      .map((replica, index) =>
        replica.probe((connection) =>
          connection.call('CLUSTER', 'REPLICATE', ids[index % shards] as string),
        ),
      ),
  );
}
