/**
 * What every primary must hold before a connection serves (SPEC §6, §11), read and written
 * node by node: the wire identity `{emq}:version`, the `emq` library at this host's version
 * (as a function library, or as the script of the script family), a module built for the same
 * identity where one is loaded, and a memory policy that evicts nothing an admission writes.
 * Only commands the chosen family's targets have are sent: the script family's probe sends no
 * FCALL, FUNCTION or COMMAND (ElastiCache Serverless lacks the first two).
 */
import type { Cluster, Valkey } from 'iovalkey';
import type { ExecutorChoice } from './config.js';
import { LIBRARY_SOURCE, LIBRARY_VERSION, SCRIPT_SHA, SCRIPT_SOURCE } from './executors/library.js';
import { fenceKey } from './keyspace.js';
import { classifyFailure } from './outcome-rules.js';
import { ConfigError, FenceError } from './outcomes.js';

/** What reading and installing need of a connection (a Connection satisfies it). */
export interface FenceTarget {
  readonly client: Valkey | Cluster;
  readonly config: { readonly wire: string; readonly executor: ExecutorChoice };
  primaries(): Valkey[];
}

/** One primary, as its checks found it. */
export interface FenceReading {
  /** The cluster node id, or `server` on a standalone server; never an address. */
  readonly node: string;
  /** The module's identity where the module is loaded, else null. */
  readonly module: string | null;
  /** Which of the module's calls the node knows; `admit` only for this version's EMQ.ADMIT. */
  readonly commands: { readonly enqueue: boolean; readonly admit: boolean };
  /** The node runs FUNCTION and FCALL (ElastiCache Serverless does not). */
  readonly functions: boolean;
  /**
   * The node's `{emq}:version`, null when missing. A cluster without the module keeps one
   * copy, on its slot's owner, and that copy stands for every node.
   */
  readonly value: string | null;
  /** The library version the node runs (function library or script), null where it has none. */
  readonly library: string | null;
  /** `maxmemory_policy` from INFO memory, or `unknown` where the target does not report it. */
  readonly policy: string;
  /** True when identity and library match this host's (the policy is judged apart). */
  readonly ok: boolean;
}

const ELSEWHERE = Symbol('elsewhere');

interface Raw {
  node: string;
  module: string | null;
  commands: { enqueue: boolean; admit: boolean };
  functions: boolean;
  value: string | null | typeof ELSEWHERE;
  library: string | null;
  policy: string;
}

/** Reads every primary's state, at most two pipelines per primary, all primaries at once. */
export async function readNodes(target: FenceTarget): Promise<FenceReading[]> {
  const cluster = target.client.isCluster;
  const family = target.config.executor;
  let raw: Raw[];
  try {
    raw = await Promise.all(target.primaries().map((node) => readNode(node, cluster, family)));
  } catch (error) {
    throw classifyFailure(error);
  }
  const routed = raw.find((node) => node.value !== ELSEWHERE)?.value;
  const needsLibrary = raw.some((node) => !node.commands.admit) || family !== 'native';
  return raw.map((node) => {
    const value =
      node.value === ELSEWHERE ? ((routed as string | null | undefined) ?? null) : node.value;
    const identity = node.module === null || node.module === target.config.wire;
    const library = !needsLibrary || node.library === LIBRARY_VERSION;
    return { ...node, value, ok: identity && value === target.config.wire && library };
  });
}

async function readNode(node: Valkey, cluster: boolean, family: ExecutorChoice): Promise<Raw> {
  // What the node has decides what may be asked of it: a family named by the configuration
  // says it (one pipeline); `auto` asks COMMAND INFO first, then only what the node knows, so
  // no target is sent a command it lacks (MemoryDB has no EMQ.WIRE, Serverless no FCALL_RO).
  const known =
    family === 'auto'
      ? await commandsOf(node)
      : {
          module: family === 'native',
          admit: family === 'native',
          wire: family === 'native',
          functions: family !== 'script',
        };
  const probe = node.pipeline().get(fenceKey).info('memory');
  if (cluster) probe.call('CLUSTER', 'MYID');
  else probe.info('cluster');
  if (known.module && known.wire) probe.call('EMQ.WIRE');
  if (known.functions) probe.call('FCALL_RO', 'emq_version', '0');
  else probe.call('SCRIPT', 'EXISTS', SCRIPT_SHA);
  if (family === 'native') probe.call('COMMAND', 'INFO', 'EMQ.ADMIT');
  const replies = (await probe.exec()) ?? [];
  const [local, memory, name] = replies;
  const wire = known.module && known.wire ? replies[3] : undefined;
  const version = replies[known.module && known.wire ? 4 : 3];
  const admitInfo = family === 'native' ? replies[5] : undefined;
  // A failure of the probe itself (NOPERM, a dead link) says nothing about the node: raise it.
  for (const reply of [memory, name, wire, admitInfo]) if (reply?.[0]) throw reply[0];
  if (version?.[0] && !/function not found/i.test(version[0].message)) throw version[0];
  if (!cluster && /^cluster_enabled:1/m.test(String(name?.[1]))) {
    throw new ConfigError(
      'The server is a cluster node: set EMQ_CLUSTER=true (the CLI: --cluster) and give the seeds.',
    );
  }
  const [module, moduleValue] = Array.isArray(wire?.[1]) ? (wire[1] as unknown[]) : [null, null];
  const admit =
    family === 'native'
      ? Array.isArray(admitInfo?.[1]) && movableKeys((admitInfo[1] as unknown[])[0])
      : known.admit;
  const library = known.functions
    ? version?.[0]
      ? null
      : stringOr(version?.[1])
    : Array.isArray(version?.[1]) && version[1][0] === 1
      ? LIBRARY_VERSION
      : null;
  return {
    node: cluster ? String(name?.[1]) : 'server',
    module: stringOr(module),
    commands: { enqueue: known.module, admit },
    functions: known.functions,
    value:
      typeof module === 'string'
        ? stringOr(moduleValue)
        : local?.[0]
          ? movedOrThrow(local[0])
          : stringOr(local?.[1]),
    library,
    policy: /^maxmemory_policy:(\S+)/m.exec(String(memory?.[1]))?.[1] ?? 'unknown',
  };
}

interface Known {
  readonly module: boolean;
  readonly admit: boolean;
  readonly wire: boolean;
  readonly functions: boolean;
}

/**
 * Which of the calls the families need a node knows (COMMAND INFO), for `auto`. Only the
 * native family's users hold COMMAND INFO (src/access-rules.ts): a user refused it was given
 * the function or the script family, and which one is told by SCRIPT EXISTS, a command every
 * target has and only the script family's users hold. So `auto` works under each deployed
 * user's rights and sends no target a command it lacks.
 */
async function commandsOf(node: Valkey): Promise<Known> {
  let infos: unknown[];
  try {
    infos = (await node.call(
      'COMMAND',
      'INFO',
      'EMQ.ENQUEUE',
      'EMQ.ADMIT',
      'EMQ.WIRE',
      'FCALL_RO',
    )) as unknown[];
  } catch (error) {
    if (!isNoPerm(error)) throw error;
    return { module: false, admit: false, wire: false, functions: !(await holdsScripts(node)) };
  }
  return {
    module: infos[0] != null,
    admit: infos[0] != null && movableKeys(infos[1]),
    wire: infos[2] != null,
    functions: infos[3] != null,
  };
}

/** Whether the connection's user may run the script family's SCRIPT EXISTS. */
async function holdsScripts(node: Valkey): Promise<boolean> {
  try {
    await node.call('SCRIPT', 'EXISTS', SCRIPT_SHA);
    return true;
  } catch (error) {
    if (isNoPerm(error)) return false;
    throw error;
  }
}

function isNoPerm(error: unknown): boolean {
  return error instanceof Error && /^NOPERM\b/.test(error.message);
}

/** This version's EMQ.ADMIT takes any number of admissions, so its keys are found per call. */
function movableKeys(info: unknown): boolean {
  return Array.isArray(info) && Array.isArray(info[2]) && info[2].includes('movablekeys');
}

function stringOr(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function movedOrThrow(error: Error): typeof ELSEWHERE {
  if (/^MOVED /.test(error.message)) return ELSEWHERE;
  throw error;
}

/**
 * Throws unless every primary can serve this host: a retryable FenceError naming the first node
 * whose identity or library differs; a ConfigError for a memory policy that evicts job rows
 * (`allkeys-*`). `noeviction` and `volatile-*` serve: nothing an admission writes has a TTL.
 */
export function checkNodes(
  readings: readonly FenceReading[],
  wire: string,
  warn: (event: string, fields: Readonly<Record<string, string>>) => void,
): void {
  const bad = readings.find((reading) => !reading.ok);
  if (bad !== undefined) throw mismatch(bad, wire);
  for (const reading of readings) {
    if (reading.policy === 'unknown') {
      warn('memory-policy-unknown', { node: reading.node });
    } else if (evictsJobs(reading.policy)) {
      throw new ConfigError(
        `${describe(reading.node)} runs maxmemory-policy ${reading.policy}: it may evict job rows and idempotency records. Set maxmemory-policy noeviction (or a volatile-* policy: nothing this package writes has a TTL).`,
      );
    }
  }
}

/** A memory policy that may evict keys without a TTL: job rows and idempotency records. */
export function evictsJobs(policy: string): boolean {
  return policy.startsWith('allkeys-');
}

function mismatch(bad: FenceReading, wire: string): FenceError {
  const where = describe(bad.node);
  const advice = 'Retry later; operators: run `emq install` once hosts and module agree.';
  if (bad.module !== null && bad.module !== wire) {
    return new FenceError(
      `Wire identity mismatch on ${where}: its module is built for '${bad.module}'; this host expects '${wire}'. ${advice}`,
    );
  }
  if (bad.value !== wire) {
    const holds = bad.value === null ? 'has no {emq}:version' : `holds '${bad.value}'`;
    return new FenceError(
      `Wire identity mismatch on ${where}: it ${holds}; this host expects '${wire}'. ${advice}`,
    );
  }
  const has = bad.library === null ? 'has no emq library' : `has emq library '${bad.library}'`;
  return new FenceError(
    `Library mismatch on ${where}: it ${has}; this host expects '${LIBRARY_VERSION}'. ${advice}`,
  );
}

/** Loads the script of the script family where a primary lacks it (the connector, the installer). */
export async function loadScripts(
  target: FenceTarget,
  readings: readonly FenceReading[],
): Promise<void> {
  const primaries = target.primaries();
  await Promise.all(
    readings.map(async (reading, at) => {
      if (reading.functions || reading.library === LIBRARY_VERSION) return;
      await primaries[at]?.call('SCRIPT', 'LOAD', SCRIPT_SOURCE);
    }),
  );
}

/**
 * Installs this host's identity and the `emq` library on every primary, idempotently:
 * EMQ.WIRE.INSTALL where the module is loaded (the node's own copy), else a SET of the key
 * (on its owner, in a cluster: through the one endpoint on Serverless); then FUNCTION LOAD
 * REPLACE where the node runs functions, SCRIPT LOAD where it does not. Returns the readings.
 */
export async function install(target: FenceTarget): Promise<FenceReading[]> {
  const before = await readNodes(target);
  const primaries = target.primaries();
  const wire = target.config.wire;
  try {
    await Promise.all(
      primaries.map(async (node, index) => {
        const reading = before[index];
        if (reading === undefined) return;
        if (reading.module !== null && reading.module !== wire) {
          throw new FenceError(
            `Cannot install wire identity '${wire}' on ${describe(reading.node)}: its module is built for '${reading.module}'. Deploy a matching module or set EMQ_WIRE.`,
          );
        }
        if (reading.module !== null) await node.call('EMQ.WIRE.INSTALL');
        else if (!target.client.isCluster) await node.set(fenceKey, wire);
        if (reading.functions) await node.call('FUNCTION', 'LOAD', 'REPLACE', LIBRARY_SOURCE);
        else await node.call('SCRIPT', 'LOAD', SCRIPT_SOURCE);
      }),
    );
    if (target.client.isCluster && before.some((reading) => reading.module === null)) {
      await target.client.set(fenceKey, wire);
    }
  } catch (error) {
    throw classifyFailure(error);
  }
  return readNodes(target);
}

function describe(node: string): string {
  return node === 'server' ? 'the server' : `cluster node ${node}`;
}
