/**
 * What every primary must hold before a connection serves (SPEC §6, §11), read and written
 * node by node: the wire identity `{emq}:version`, the `emq` function library at this host's
 * version, and a memory policy that never evicts. Reading takes one pipeline per primary.
 */
import type { Cluster, Valkey } from 'iovalkey';
import { LIBRARY_SOURCE, LIBRARY_VERSION } from './executors/library.js';
import { fenceKey } from './keyspace.js';
import { classifyFailure } from './outcome-rules.js';
import { ConfigError, FenceError } from './outcomes.js';

/** What reading and installing need of a connection (a Connection satisfies it). */
export interface InstallTarget {
  readonly client: Valkey | Cluster;
  readonly wire: string;
  primaries(): Valkey[];
}

/** One primary, as its checks found it. */
export interface FenceReading {
  /** The cluster node id, or `server` on a standalone server; never an address. */
  readonly node: string;
  /** The module's identity where the module is loaded, else null. */
  readonly module: string | null;
  /** Which of the module's commands the node knows (COMMAND INFO). */
  readonly commands: { readonly enqueue: boolean; readonly admit: boolean };
  /**
   * The node's `{emq}:version`, null when missing, or `elsewhere` when this node does not own
   * the key's slot (a cluster without the module keeps one routed copy).
   */
  readonly value: string | null;
  /** What `emq_version` answers, or null where the library is not loaded. */
  readonly library: string | null;
  /** `maxmemory_policy` from INFO memory. */
  readonly policy: string;
  /** True when identity and library match this host's (the policy is judged apart). */
  readonly ok: boolean;
}

export const ELSEWHERE = 'elsewhere';

/** Reads every primary's state, one pipeline per primary, all primaries at once. */
export async function readNodes(target: InstallTarget): Promise<FenceReading[]> {
  const cluster = target.client.isCluster;
  let raw: Omit<FenceReading, 'ok'>[];
  try {
    raw = await Promise.all(target.primaries().map((node) => readNode(node, cluster)));
  } catch (error) {
    throw classifyFailure(error);
  }
  // Without the module a cluster holds one copy, on its slot's owner: that answer is everyone's.
  const routed = raw.find((node) => node.module === null && node.value !== ELSEWHERE)?.value;
  return raw.map((node) => {
    const value = node.value === ELSEWHERE ? (routed ?? null) : node.value;
    const identity = node.module === null || node.module === target.wire;
    return { ...node, ok: identity && value === target.wire && node.library === LIBRARY_VERSION };
  });
}

async function readNode(node: Valkey, cluster: boolean): Promise<Omit<FenceReading, 'ok'>> {
  const pipeline = node
    .pipeline()
    .call('COMMAND', 'INFO', 'EMQ.ENQUEUE', 'EMQ.ADMIT')
    .call('EMQ.WIRE')
    .get(fenceKey)
    .call('FCALL_RO', 'emq_version', '0')
    .info('memory');
  if (cluster) pipeline.call('CLUSTER', 'MYID');
  const replies = (await pipeline.exec()) ?? [];
  const [commands, wire, local, library, memory, myId] = replies;
  // A failure of the probe itself (NOPERM, a dead link) says nothing about the node: raise it.
  for (const reply of [commands, memory, myId]) if (reply?.[0]) throw reply[0];
  const known = Array.isArray(commands?.[1]) ? commands[1] : [];
  const [module, moduleValue] = wire?.[0] || !Array.isArray(wire?.[1]) ? [null, null] : wire[1];
  const value =
    typeof module === 'string'
      ? stringOr(moduleValue)
      : local?.[0]
        ? movedOrThrow(local[0])
        : stringOr(local?.[1]);
  if (library?.[0] && !/function not found/i.test(library[0].message)) throw library[0];
  if (wire?.[0] && !/^ERR unknown command/i.test(wire[0].message)) throw wire[0];
  return {
    node: cluster ? String(myId?.[1]) : 'server',
    module: stringOr(module),
    commands: { enqueue: known[0] != null, admit: known[1] != null },
    value,
    library: library?.[0] ? null : stringOr(library?.[1]),
    policy: /^maxmemory_policy:(\S+)/m.exec(String(memory?.[1]))?.[1] ?? 'unknown',
  };
}

function stringOr(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function movedOrThrow(error: Error): string {
  if (/^MOVED /.test(error.message)) return ELSEWHERE;
  throw error;
}

/**
 * Throws unless every primary can serve this host: a retryable FenceError naming the first
 * node whose identity or library differs; a ConfigError for an evicting memory policy
 * (`volatile-*` serves with `allowVolatileEviction`, and `warn` is told at every connect).
 */
export function checkNodes(
  readings: readonly FenceReading[],
  wire: string,
  policy: {
    readonly allowVolatileEviction: boolean;
    readonly warn: (event: string, fields: Readonly<Record<string, string>>) => void;
  },
): void {
  const bad = readings.find((reading) => !reading.ok);
  if (bad !== undefined) throw mismatch(bad, wire);
  for (const reading of readings) {
    if (reading.policy === 'noeviction') continue;
    const where = describe(reading.node);
    if (reading.policy.startsWith('volatile-') && policy.allowVolatileEviction) {
      policy.warn('volatile-eviction', { node: reading.node, policy: reading.policy });
      continue;
    }
    const why = reading.policy.startsWith('volatile-')
      ? 'it may evict idempotency records, so a replay could admit a second job'
      : 'it may evict job rows';
    throw new ConfigError(
      `${where} runs maxmemory-policy ${reading.policy}: ${why}. Set maxmemory-policy noeviction${reading.policy.startsWith('volatile-') ? ' (or accept the risk with EMQ_ALLOW_VOLATILE_EVICTION=true)' : ''}.`,
      { publicMessage: 'The Valkey memory policy may evict data; an operator must change it.' },
    );
  }
}

const NOT_READY = {
  publicMessage:
    'The Valkey nodes are not set up for this host yet (wire identity or function library); retry later.',
};

function mismatch(bad: FenceReading, wire: string): FenceError {
  const where = describe(bad.node);
  const advice = 'Retry later; operators: run `emq install` once hosts and module agree.';
  if (bad.module !== null && bad.module !== wire) {
    return new FenceError(
      `Wire identity mismatch on ${where}: its module is built for '${bad.module}'; this host expects '${wire}'. ${advice}`,
      NOT_READY,
    );
  }
  if (bad.value !== wire) {
    const holds = bad.value === null ? 'has no {emq}:version' : `holds '${bad.value}'`;
    return new FenceError(
      `Wire identity mismatch on ${where}: it ${holds}; this host expects '${wire}'. ${advice}`,
      NOT_READY,
    );
  }
  const has =
    bad.library === null ? 'has no emq function library' : `has emq library '${bad.library}'`;
  return new FenceError(
    `Function library mismatch on ${where}: it ${has}; this host expects '${LIBRARY_VERSION}'. ${advice}`,
    NOT_READY,
  );
}

/**
 * Installs this host's identity and loads the `emq` library on every primary, idempotently:
 * EMQ.WIRE.INSTALL where the module is loaded (the node's own copy), else a SET of the key
 * (on its owner, in a cluster); then FUNCTION LOAD REPLACE. Returns the readings after.
 */
export async function install(target: InstallTarget): Promise<FenceReading[]> {
  const before = await readNodes(target);
  const primaries = target.primaries();
  try {
    await Promise.all(
      primaries.map(async (node, index) => {
        const reading = before[index];
        if (reading !== undefined && reading.module !== null && reading.module !== target.wire) {
          throw new FenceError(
            `Cannot install wire identity '${target.wire}' on ${describe(reading.node)}: its module is built for '${reading.module}'. Deploy a matching module or set EMQ_WIRE.`,
          );
        }
        if (reading?.module != null) await installWire(node);
        else if (!target.client.isCluster) await node.set(fenceKey, target.wire);
        await node.call('FUNCTION', 'LOAD', 'REPLACE', LIBRARY_SOURCE);
      }),
    );
    if (target.client.isCluster && before.some((reading) => reading.module === null)) {
      await target.client.set(fenceKey, target.wire);
    }
  } catch (error) {
    throw classifyFailure(error);
  }
  return readNodes(target);
}

/** EMQ.WIRE.INSTALL; a module built before it existed takes the older EMQ.WIRE INSTALL. */
async function installWire(node: Valkey): Promise<void> {
  try {
    await node.call('EMQ.WIRE.INSTALL');
  } catch (error) {
    if (!(error instanceof Error) || !/^ERR unknown command/i.test(error.message)) throw error;
    await node.call('EMQ.WIRE', 'INSTALL');
  }
}

function describe(node: string): string {
  return node === 'server' ? 'the server' : `cluster node ${node}`;
}
