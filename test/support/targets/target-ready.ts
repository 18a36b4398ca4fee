/**
 * What a target must prove before a test gets it, through every proxy as a client would
 * come (the harness's user, which the proxies exempt): the TLS handshake against the target's
 * CA, forwarding to the node, and in a cluster a slot map that serves all 16384 slots and
 * names nothing but proxies. Then the command record starts empty.
 */
import { withProbe } from '../../../scripts/valkey/probe.js';
import { waitFor } from '../wait.js';
import type { Target, TargetNode } from './target.js';

const READY_TIMEOUT_MS = 30_000;
const SLOTS = 16_384;

export function waitUntilReachable(target: Target, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  return waitFor(`${target.name} to serve through every proxy`, timeoutMs, async () => {
    for (const node of target.nodes) {
      const problem = await throughProxy(target, node);
      if (problem !== undefined) return problem;
    }
    target.commands.reset();
    return undefined;
  });
}

function throughProxy(target: Target, node: TargetNode): Promise<string | undefined> {
  const port = node.proxy.port;
  const via = target.tls === undefined ? port : { port, ca: target.tls.ca };
  return withProbe(via, target.admin, async (connection) => {
    if ((await connection.ping()) !== 'PONG') return `${node.url} did not answer PING`;
    if (!target.cluster) return undefined;
    return slotMapProblem(target, node, await connection.call('CLUSTER', 'SLOTS'));
  });
}

/** Undefined once the map covers every slot and every endpoint in it is a proxy of the target. */
export function slotMapProblem(
  target: Target,
  node: TargetNode,
  reply: unknown,
): string | undefined {
  if (!Array.isArray(reply)) return `${node.url} answered CLUSTER SLOTS oddly`;
  const proxies = new Set(target.nodes.map((each) => each.proxy.port));
  let covered = 0;
  for (const range of reply as unknown[][]) {
    const [first, last, ...endpoints] = range;
    covered += Number(last) - Number(first) + 1;
    for (const endpoint of endpoints as unknown[][]) {
      const [host, port] = endpoint;
      if (host !== '127.0.0.1' || !proxies.has(Number(port))) {
        return `${node.url}'s slot map names ${String(host)}:${String(port)}, not a proxy`;
      }
    }
  }
  return covered === SLOTS ? undefined : `${node.url}'s slot map covers ${covered} slots`;
}
