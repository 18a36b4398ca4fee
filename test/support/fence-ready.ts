/**
 * Installs the fence the way an operator does, then proves what a test needs before it runs:
 * the cluster serves every slot and every node with the module, primaries and replicas alike,
 * holds the identity. Why replicas too: a failover test promotes one, and a promoted replica
 * without the copy refuses every write ("has no {emq}:version").
 *
 * The race this closes: right after creation, on a loaded machine, a primary can miss its
 * cluster-node-timeout and be failed over while INSTALL runs; the write it took is then
 * discarded when it resyncs as a replica, and the new primary never had it. So the check is
 * repeated until it holds, installing again whenever a primary lacks the copy (INSTALL is
 * idempotent: it writes the same value).
 */
import { install } from '../../src/connection/fence.js';
import { connect } from '../../src/index.js';
import { withProbe } from './probe.js';
import type { ClusterHandle, ServerHandle } from './types.js';
import { waitFor } from './wait.js';

const FENCE_READY_TIMEOUT_MS = 60_000;

function loadsModule(node: ServerHandle): boolean {
  return node.args.includes('--loadmodule');
}

/** Undefined once this primary holds its module's own identity, else why not. */
async function fenceStateOf(node: ServerHandle): Promise<string | undefined> {
  const reply = await withProbe(node.port, undefined, (connection) => connection.call('EMQ.WIRE'));
  if (!Array.isArray(reply)) return `${node.url} answered EMQ.WIRE with ${String(reply)}`;
  const [module, value] = reply as unknown[];
  return value === module
    ? undefined
    : `${node.url} holds wire ${String(value)}, not ${String(module)}`;
}

/**
 * Undefined once every replica of this primary has acknowledged the primary's whole stream,
 * fence included. A replica cannot be asked directly: EMQ.WIRE is a write command (refused
 * there) and a plain GET of the key is redirected to its slot's owner. Replication is in
 * order, so an acknowledged offset at or past the primary's, read after the fence was seen
 * there, proves the copy arrived. Returns how many replicas it counted.
 */
async function replicasCaughtUp(
  node: ServerHandle,
): Promise<{ pending?: string; replicas: number }> {
  const reply = (await withProbe(node.port, undefined, (connection) =>
    connection.role(),
  )) as unknown[];
  const [, offset, replicas] = reply;
  if (!Array.isArray(replicas)) return { pending: `${node.url} answered ROLE oddly`, replicas: 0 };
  const behind = replicas.filter((entry) => Number((entry as unknown[])[2]) < Number(offset));
  return behind.length === 0
    ? { replicas: replicas.length }
    : {
        pending: `${behind.length} replica(s) of ${node.url} not caught up`,
        replicas: replicas.length,
      };
}

async function installOnce(target: ServerHandle | ClusterHandle): Promise<void> {
  const connection = await connect({
    ...(target.kind === 'cluster'
      ? { urls: [...target.seeds], cluster: true }
      : { urls: [target.url], cluster: false }),
    checkFence: false,
  });
  try {
    await install(connection);
  } finally {
    await connection.close();
  }
}

/**
 * Installs the fence and waits until every running node that loads the module holds it (and a
 * cluster is healthy). Servers without the module hold it in one key, written once.
 */
export async function installFenceEverywhere(
  target: ServerHandle | ClusterHandle,
  timeoutMs = FENCE_READY_TIMEOUT_MS,
): Promise<void> {
  const nodes = target.kind === 'cluster' ? target.nodes : [target];
  if (!nodes.some(loadsModule)) {
    await installOnce(target);
    return;
  }
  let installed = false;
  await waitFor('the fence on every node', timeoutMs, async () => {
    if (target.kind === 'cluster') await target.waitForHealthy(timeoutMs);
    if (!installed) {
      await installOnce(target);
      installed = true;
    }
    const running = nodes.filter((node) => node.running && loadsModule(node));
    const roles = await Promise.all(running.map((node) => node.role()));
    const primaries = running.filter((_, at) => roles[at] === 'primary');
    const missing = (await Promise.all(primaries.map(fenceStateOf))).filter(
      (state) => state !== undefined,
    );
    // A primary without the copy lost it (see above): install again.
    if (missing.length > 0) {
      installed = false;
      return missing.join('; ');
    }
    const replicas = await Promise.all(primaries.map(replicasCaughtUp));
    const behind = replicas.find((state) => state.pending !== undefined)?.pending;
    if (behind !== undefined) return behind;
    const linked = replicas.reduce((sum, state) => sum + state.replicas, 0);
    const expected = roles.filter((role) => role === 'replica').length;
    return linked === expected ? undefined : `${linked} of ${expected} replicas linked`;
  });
}
