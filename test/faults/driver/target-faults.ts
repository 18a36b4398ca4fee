/**
 * What the fault scenarios on a target profile need besides the driver: the nodes to strike
 * (found through the harness, which sees the nodes behind their proxies), queues placed on
 * them, and the condition that ends a fault held open: every face has heard "retry".
 */
import type { Connection } from '../../../src/index.js';
import { slotOf, wireKey } from '../../../src/keyspace/keyspace.js';
import { parseClusterNodes } from '../../support/cluster-nodes.js';
import { LOOPBACK } from '../../support/ports.js';
import { stringReply } from '../../support/probe.js';
import type { Target, TargetNode } from '../../support/targets/index.js';
import { waitFor } from '../../support/wait.js';
import type { Face, Ledger } from './ledger.js';
import { queuesOn, waitForRole } from './topology.js';

/** How long a fault may wait for its callers to hear "retry": far past any command timeout. */
const HEARD_RETRY_TIMEOUT_MS = 60_000;
/** How long a dead primary may take to be seen failing, or its heir to take over. */
const PROMOTION_TIMEOUT_MS = 30_000;

/**
 * Who promotes a dead primary's replica. `election`: the cluster itself, as on the stack's
 * self-managed nodes; it needs the votes of most primaries, so it works from three shards on.
 * `control-plane`: the service, as ElastiCache does; two shards could never elect (one of two
 * primaries is dead, the majority is both), so once the heir sees its primary failing the
 * harness does what the service does: CLUSTER FAILOVER TAKEOVER on the heir.
 */
export type Promotion = 'election' | 'control-plane';

/** The primary serving `{emq}:version`'s slot: losing it moves the fence key to its heir too. */
export async function fenceOwner(target: Target, connection: Connection): Promise<TargetNode> {
  const address = connection.nodeOf(slotOf(wireKey)).split(';')[0];
  const owner = (await target.primaries()).find(
    (node) => `${LOOPBACK}:${node.proxy.port}` === address,
  );
  if (owner === undefined) throw new Error(`no primary of ${target.name} serves the fence slot`);
  return owner;
}

/** The replica that follows `primary`, by its own view (it replicates through the proxy). */
export async function heirOf(target: Target, primary: TargetNode): Promise<TargetNode> {
  for (const node of target.nodes) {
    if (node === primary || !node.server.running) continue;
    const role = (await node.server.probe((connection) => connection.role())) as unknown[];
    if (role[0] === 'slave' && Number(role[2]) === primary.proxy.port) return node;
  }
  throw new Error(`no replica of ${target.name} follows ${primary.url}`);
}

/** Resolves once `heir`, whose primary was killed, is primary, promoted as `promotion` says. */
export async function promoted(
  target: Target,
  heir: TargetNode,
  dead: TargetNode,
  promotion: Promotion,
): Promise<void> {
  if (promotion === 'control-plane') {
    await waitFor(`${heir.url} to see ${dead.url} failing`, PROMOTION_TIMEOUT_MS, async () => {
      const nodes = await stringReply(target.call(heir, 'CLUSTER', 'NODES'));
      const entry = parseClusterNodes(nodes).find((node) => node.port === dead.proxy.port);
      const failing = entry?.flags.some((flag) => flag === 'fail?' || flag === 'fail');
      return failing ? undefined : `flags ${entry?.flags.join(',')}`;
    });
    await target.call(heir, 'CLUSTER', 'FAILOVER', 'TAKEOVER');
  }
  await waitForRole(heir.server, 'primary', PROMOTION_TIMEOUT_MS);
}

/**
 * Two queues on `busy` and one on every other primary: traffic the fault strikes and traffic
 * it must leave alone, in one load.
 */
export async function queuesFor(
  target: Target,
  connection: Connection,
  busy: TargetNode,
): Promise<string[]> {
  return (await target.primaries()).flatMap((node) =>
    queuesOn(connection, { host: LOOPBACK, port: node.proxy.port }, node === busy ? 2 : 1),
  );
}

/**
 * Resolves once a request of every face has had a retryable answer: an HTTP 503, an SQS batch
 * item failure. A fault held until then has lasted past the command timeout wherever callers
 * only hear "retry" by timing out.
 */
export function everyFaceHeardRetry(ledger: Ledger): Promise<void> {
  const faces: readonly Face[] = ['http', 'sqs'];
  return waitFor('a retryable answer on every face', HEARD_RETRY_TIMEOUT_MS, async () => {
    const silent = faces.filter(
      (face) => !ledger.of(face).some((request) => request.retryable > 0),
    );
    return silent.length === 0 ? undefined : `no retryable answer yet on ${silent.join(', ')}`;
  });
}
