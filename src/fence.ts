/**
 * The fence (SPEC §6): every primary must hold this host's wire identity in `{emq}:version`
 * before a connection serves. Read and install both work node by node where the module is
 * loaded (each primary keeps its own copy) and through the routed key where it is not.
 */
import type { Cluster, Valkey } from 'iovalkey';
import type { ExecutorKind } from './executors/executor.js';
import { fenceKey } from './keyspace.js';
import { classifyFailure, FenceError } from './outcomes.js';

/** What the fence needs of a connection (a Connection satisfies it). */
export interface FenceTarget {
  readonly client: Valkey | Cluster;
  readonly executor: { readonly kind: ExecutorKind };
  readonly wire: string;
  primaries(): Valkey[];
}

/** One primary's view of the fence. */
export interface FenceReading {
  /** The cluster node id, or `server` on a standalone server; never an address. */
  readonly node: string;
  /** The module's identity where the module is loaded, else null. */
  readonly module: string | null;
  /** The node's `{emq}:version`, or null when missing. */
  readonly value: string | null;
  /** True when the node serves: value (and module identity) equal this host's wire. */
  readonly ok: boolean;
}

/** Reads the fence of every primary (native) or of the routed key (script). */
export async function readFence(target: FenceTarget): Promise<FenceReading[]> {
  try {
    if (target.executor.kind === 'script') {
      const value = await target.client.get(fenceKey);
      const node = target.client.isCluster ? 'routed' : 'server';
      return [{ node, module: null, value, ok: value === target.wire }];
    }
    return await Promise.all(
      target.primaries().map(async (node) => {
        const [module, value] = await wireOf(node);
        const ok = value === target.wire && module === target.wire;
        return { node: await nodeName(target, node), module, value, ok };
      }),
    );
  } catch (error) {
    throw classifyFailure(error);
  }
}

/** Throws a retryable FenceError naming the first node whose fence does not match. */
export async function checkFence(target: FenceTarget): Promise<void> {
  const bad = (await readFence(target)).find((reading) => !reading.ok);
  if (bad === undefined) return;
  const expects = `this host expects '${target.wire}'`;
  const holds = bad.value === null ? 'has no {emq}:version' : `holds '${bad.value}'`;
  const module =
    bad.module !== null && bad.module !== target.wire
      ? `, its module is built for '${bad.module}'`
      : '';
  throw new FenceError(
    `Wire identity mismatch on ${describe(bad.node)}: it ${holds}${module}; ${expects}. Retry later; operators: run \`emq fence install\` once hosts and module agree.`,
  );
}

/**
 * Installs this host's wire identity, idempotently: on every primary with the module
 * (EMQ.WIRE INSTALL writes the node's own copy, replicated as a plain SET), else a routed SET.
 */
export async function installFence(target: FenceTarget): Promise<FenceReading[]> {
  try {
    if (target.executor.kind === 'script') {
      await target.client.set(fenceKey, target.wire);
    } else {
      for (const node of target.primaries()) {
        const [module] = await wireOf(node);
        if (module !== target.wire) {
          throw new FenceError(
            `Cannot install wire identity '${target.wire}' on ${describe(await nodeName(target, node))}: its module is built for '${module}'. Deploy a matching module or set EMQ_WIRE.`,
          );
        }
        await node.call('EMQ.WIRE', 'INSTALL');
      }
    }
  } catch (error) {
    throw classifyFailure(error);
  }
  return readFence(target);
}

async function wireOf(node: Valkey): Promise<[string | null, string | null]> {
  const reply = await node.call('EMQ.WIRE');
  if (!Array.isArray(reply)) return [null, null];
  const [module, value] = reply;
  return [typeof module === 'string' ? module : null, typeof value === 'string' ? value : null];
}

async function nodeName(target: FenceTarget, node: Valkey): Promise<string> {
  if (!target.client.isCluster) return 'server';
  return String(await node.call('CLUSTER', 'MYID'));
}

function describe(node: string): string {
  return node === 'server' || node === 'routed' ? 'the server' : `cluster node ${node}`;
}
