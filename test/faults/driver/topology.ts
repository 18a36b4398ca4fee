/**
 * Server-side helpers of the fault scenarios: installing the fence, placing queues on chosen
 * primaries, and waiting for a node to take a role.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Connection } from '../../../src/index.js';
import { queueSlot } from '../../../src/keyspace/keyspace.js';
import { connectTo } from '../../support/emq.js';
import { installFenceEverywhere } from '../../support/fence-ready.js';
import { type ClusterHandle, randomQueue, type ServerHandle } from '../../support/servers.js';
import { waitFor } from '../../support/wait.js';

/**
 * Installs wire identity '1' on every primary, as an operator does once per deployment, and
 * waits until every node (replicas too: a failover promotes one) holds it.
 */
export async function installWire(target: ServerHandle | ClusterHandle): Promise<void> {
  await installFenceEverywhere(target);
}

/**
 * `count` fresh queues whose slot `server` serves as primary: a harness server, or any address
 * the connection's slot map names (a target node's proxy).
 */
export function queuesOn(
  connection: Connection,
  server: Pick<ServerHandle, 'host' | 'port'>,
  count: number,
  prefix = 'load',
): string[] {
  const address = `${server.host}:${server.port}`;
  const queues: string[] = [];
  for (let tries = 0; queues.length < count; tries++) {
    if (tries >= 100_000) throw new Error(`no queue found on ${address}`);
    const queue = randomQueue(prefix);
    // The connection names a slot's node as `primary;replica...`; the first one writes.
    if (connection.nodeOf(queueSlot(queue)).split(';')[0] === address) queues.push(queue);
  }
  return queues;
}

/**
 * Two fresh queues on `struck`, the primary a fault strikes, and one on every other primary:
 * traffic the fault strikes and traffic it must leave alone, in one load. `struck` lists the
 * first kind, for a promise that allows losses there only.
 */
export async function queuesStriking(
  cluster: ClusterHandle,
  struck: ServerHandle,
): Promise<{ all: string[]; struck: string[] }> {
  const connection = await connectTo(cluster);
  const onStruck = queuesOn(connection, struck, 2);
  const others = (await primariesOf(cluster)).filter((node) => node !== struck);
  return {
    all: [...onStruck, ...others.flatMap((node) => queuesOn(connection, node, 1))],
    struck: onStruck,
  };
}

/**
 * The primaries that say so themselves: right after a failover another node's view can still
 * list the demoted one as a primary for a moment.
 */
export async function primariesOf(cluster: ClusterHandle): Promise<ServerHandle[]> {
  const listed = await cluster.primaries();
  const roles = await Promise.all(listed.map((node) => node.role().catch(() => undefined)));
  return listed.filter((_, at) => roles[at] === 'primary');
}

/** Polls until `node` reports `role`. */
export async function waitForRole(
  node: ServerHandle,
  role: 'primary' | 'replica',
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await node.role().catch(() => undefined);
    if (now === role) return;
    if (Date.now() > deadline) throw new Error(`${node.url} did not become ${role} (is ${now})`);
    await sleep(50);
  }
}

/** A node's replication offset: what it wrote (a primary), or what it applied (a replica). */
async function offsetOf(node: ServerHandle): Promise<number> {
  const client = await node.client();
  const info = await client.info('replication').finally(() => client.disconnect());
  const offset = /^master_repl_offset:(\d+)/m.exec(info)?.[1];
  if (offset === undefined) throw new Error(`${node.url} reported no master_repl_offset`);
  return Number(offset);
}

/**
 * Resolves once `replica` has applied everything `primary` has written so far: with
 * EMQ_ACK_REPLICAS=0 nothing else makes an acknowledged write outlive its primary's failure.
 */
export async function replicated(primary: ServerHandle, replica: ServerHandle): Promise<void> {
  const written = await offsetOf(primary);
  await waitFor(`${replica.url} to reach ${primary.url}'s offset ${written}`, 20_000, async () => {
    const applied = await offsetOf(replica);
    return applied >= written ? undefined : `at ${applied}`;
  });
}

/** The replica that follows `primary`, found through the replica's own view. */
export async function replicaOf(
  cluster: ClusterHandle,
  primary: ServerHandle,
): Promise<ServerHandle> {
  for (const node of cluster.nodes) {
    if (node === primary || !node.running) continue;
    const client = await node.client();
    try {
      const role = (await client.role()) as unknown[];
      if (role[0] === 'slave' && Number(role[2]) === primary.port) return node;
    } finally {
      client.disconnect();
    }
  }
  throw new Error(`no replica follows ${primary.url}`);
}

// The server aborts a manual failover it could not finish in this long (CLUSTER_MF_TIMEOUT).
const MANUAL_FAILOVER_WINDOW_MS = 5_000;
const HANDOVER_TIMEOUT_MS = 60_000;

/**
 * `heir` takes over from its primary with CLUSTER FAILOVER, as an operator would, and this
 * resolves once it is primary. Why it may ask more than once: a manual failover waits for the
 * heir to reach its primary's offset while writes are paused, and the server silently drops
 * one it could not finish within 5 s; on a loaded 2-core machine that happens, and then the
 * fault simply has not happened yet. `asked` is called after the first request is accepted.
 */
export async function handOver(heir: ServerHandle, asked: () => void): Promise<void> {
  const deadline = Date.now() + HANDOVER_TIMEOUT_MS;
  let first = true;
  for (;;) {
    const admin = await heir.client();
    try {
      await admin.call('CLUSTER', 'FAILOVER');
    } finally {
      admin.disconnect();
    }
    if (first) asked();
    first = false;
    try {
      await waitForRole(heir, 'primary', MANUAL_FAILOVER_WINDOW_MS * 2);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
}
