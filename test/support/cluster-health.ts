import { type ClusterNodeEntry, parseClusterNodes, slotOwnership } from './cluster-nodes.js';
import { infoField, stringReply } from './probe.js';
import type { ValkeyServer } from './server.js';

const SLOTS = '16384';

export interface NodeView {
  /** Why this node is not healthy yet, or undefined. */
  readonly problem: string | undefined;
  readonly ownership: string;
}

function myself(entries: readonly ClusterNodeEntry[]): ClusterNodeEntry | undefined {
  return entries.find((entry) => entry.flags.includes('myself'));
}

/** One node's view: cluster ok, every slot served, every node known, replica linked. */
export function viewOf(node: ValkeyServer, expectedNodes: number): Promise<NodeView> {
  return node.probe(async (connection) => {
    const info = await stringReply(connection.call('CLUSTER', 'INFO'));
    const entries = parseClusterNodes(await stringReply(connection.call('CLUSTER', 'NODES')));
    const ownership = slotOwnership(entries);
    const state = infoField(info, 'cluster_state');
    const slotsOk = infoField(info, 'cluster_slots_ok');
    const known = infoField(info, 'cluster_known_nodes');
    const at = node.url;
    if (state !== 'ok') return { problem: `${at} cluster_state:${state}`, ownership };
    if (slotsOk !== SLOTS) return { problem: `${at} cluster_slots_ok:${slotsOk}`, ownership };
    if (known !== String(expectedNodes)) {
      return { problem: `${at} knows ${known} of ${expectedNodes} nodes`, ownership };
    }
    if (myself(entries)?.flags.includes('slave')) {
      const link = infoField(await connection.info('replication'), 'master_link_status');
      if (link !== 'up') return { problem: `${at} master_link_status:${link}`, ownership };
    }
    return { problem: undefined, ownership };
  });
}
