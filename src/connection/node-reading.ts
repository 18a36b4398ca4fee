/**
 * Every primary's state, one pipeline each (docs/wire.md, "The fence"; docs/reliability.md,
 * "Acknowledgements"): identity, library, module, memory policy. Only commands the family's targets
 * have are sent (Serverless: no FCALL, FUNCTION or COMMAND). fence.ts judges what is read.
 */
import type { Cluster, Valkey } from 'iovalkey';
import { LIBRARY_VERSION, SCRIPT_SHA } from '../families/library.js';
import { slotOf, wireKey } from '../keyspace/keyspace.js';
import { classifyFailure } from '../outcomes/outcome-rules.js';
import { ConfigError } from '../outcomes/outcomes.js';
import type { FamilyChoice } from '../settings/config.js';
import { commandsOf, movableKeys } from './node-commands.js';
import { nodeClientOf } from './transport.js';

/** What reading and installing need of a connection (a Connection satisfies it). */
export interface FenceTarget {
  readonly client: Valkey | Cluster;
  readonly config: { readonly wire: string; readonly family: FamilyChoice };
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
  /** Undefined where it was not asked (the node has EMQ.ADMIT). */
  library: string | null | undefined;
  policy: string;
}

/** What a reading asks beyond the checks. */
export interface ReadOptions {
  /**
   * Ask each cluster node its id (CLUSTER MYID), to name it. Default `true`; the connector
   * leaves it out of a cold start and reads again, with ids, only to explain a refusal.
   */
  readonly nodeIds?: boolean;
}

/**
 * Reads every primary's state, all primaries at once: one pipeline per primary of at most
 * three commands for a named family (`auto` asks COMMAND INFO first; `native` on a module
 * without EMQ.ADMIT reads the library after).
 */
export async function readNodes(
  target: FenceTarget,
  options: ReadOptions = {},
): Promise<FenceReading[]> {
  const cluster = target.client.isCluster;
  const family = target.config.family;
  // In a cluster without the module one copy of the identity stands for all: read it on the
  // node that owns its slot (where the slot map says so), not on every node.
  const owner = cluster ? nodeClientOf(target.client, slotOf(wireKey)) : undefined;
  const asked = { cluster, family, nodeIds: options.nodeIds ?? true };
  let raw: Raw[];
  try {
    raw = await Promise.all(
      target
        .primaries()
        .map((node) => readNode(node, { ...asked, holdsFence: holds(owner, node) })),
    );
  } catch (error) {
    throw classifyFailure(error);
  }
  const routed = raw.find((node) => node.value !== ELSEWHERE)?.value;
  const needsLibrary = raw.some((node) => !node.commands.admit) || family !== 'native';
  if (needsLibrary) {
    // `native` asks no library of a node with EMQ.ADMIT; where another node lacks it, it must.
    const primaries = target.primaries();
    await Promise.all(
      raw.map(async (node, at) => {
        if (node.library !== undefined) return;
        const primary = primaries[at] as Valkey;
        node.library = libraryOf(
          node.functions,
          await primary.call(...libraryProbe(node.functions)).catch(failure),
        );
      }),
    );
  }
  return raw.map((node) => {
    const value =
      node.value === ELSEWHERE ? ((routed as string | null | undefined) ?? null) : node.value;
    const identity = node.module === null || node.module === target.config.wire;
    const library = !needsLibrary || node.library === LIBRARY_VERSION;
    return {
      ...node,
      value,
      library: node.library ?? null,
      ok: identity && value === target.config.wire && library,
    };
  });
}

/** Whether `node` holds the fence's slot: unknown (no slot map yet) counts as maybe. */
function holds(owner: Valkey | undefined, node: Valkey): boolean {
  return owner === undefined || owner === node;
}

interface Asked {
  readonly cluster: boolean;
  readonly family: FamilyChoice;
  readonly nodeIds: boolean;
  readonly holdsFence: boolean;
}

async function readNode(node: Valkey, asked: Asked): Promise<Raw> {
  const { cluster, family } = asked;
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
  const wired = known.module && known.wire;
  // A standalone client asks `cluster` too, to refuse a cluster node reached in the wrong mode.
  const probe = cluster
    ? node.pipeline().info('memory')
    : node.pipeline().info('memory', 'cluster');
  const at = { wire: -1, value: -1, version: -1, admit: -1, name: -1 };
  let next = 1;
  // The module's EMQ.WIRE answers the node's own copy; without it, GET where the slot is.
  if (wired) {
    probe.call('EMQ.WIRE');
    at.wire = next++;
  } else if (asked.holdsFence) {
    probe.get(wireKey);
    at.value = next++;
  }
  if (family === 'native') {
    // EMQ.ADMIT makes the library unneeded; only a module without it reads the library after.
    probe.call('COMMAND', 'INFO', 'EMQ.ADMIT');
    at.admit = next++;
  } else {
    probe.call(...libraryProbe(known.functions));
    at.version = next++;
  }
  if (cluster && asked.nodeIds) {
    probe.call('CLUSTER', 'MYID');
    at.name = next++;
  }
  const replies = (await probe.exec()) ?? [];
  const reply = (index: number) => (index < 0 ? undefined : replies[index]);
  const memory = replies[0];
  const wire = reply(at.wire);
  const admitInfo = reply(at.admit);
  const name = reply(at.name);
  const version = reply(at.version);
  // A failure of the probe itself (NOPERM, a dead link) says nothing about the node: raise it.
  for (const failed of [memory, wire, admitInfo, name]) if (failed?.[0]) throw failed[0];
  const admit =
    family === 'native'
      ? Array.isArray(admitInfo?.[1]) && movableKeys((admitInfo[1] as unknown[])[0])
      : known.admit;
  if (!cluster && /^cluster_enabled:1/m.test(String(memory?.[1]))) {
    throw new ConfigError(
      'The server is a cluster node: set EMQ_CLUSTER=true (the CLI: --cluster) and give the seeds.',
    );
  }
  const [module, moduleValue] = Array.isArray(wire?.[1]) ? (wire[1] as unknown[]) : [null, null];
  const local = reply(at.value);
  return {
    node: cluster ? (name === undefined ? UNNAMED : String(name[1])) : 'server',
    module: stringOr(module),
    commands: { enqueue: known.module, admit },
    functions: known.functions,
    value:
      typeof module === 'string'
        ? stringOr(moduleValue)
        : local === undefined
          ? ELSEWHERE
          : local[0]
            ? movedOrThrow(local[0])
            : stringOr(local[1]),
    library:
      version === undefined ? undefined : libraryOf(known.functions, version[0] ?? version[1]),
    policy: /^maxmemory_policy:(\S+)/m.exec(String(memory?.[1]))?.[1] ?? 'unknown',
  };
}

/** A cluster node read without its id (a cold start): named only when a check refuses it. */
const UNNAMED = 'unnamed';

/**
 * The library version a probe's reply names: FCALL_RO's answer (an error such as "function
 * not found" is none; any other error is raised), or SCRIPT EXISTS's 1.
 */
function libraryOf(functions: boolean, reply: unknown): string | null {
  if (reply instanceof Error) {
    if (/function not found/i.test(reply.message)) return null;
    throw reply;
  }
  if (functions) return stringOr(reply);
  return Array.isArray(reply) && reply[0] === 1 ? LIBRARY_VERSION : null;
}

/** An error reply as a value, for libraryOf. */
function failure(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** The library's version: FCALL_RO where the node runs functions, else SCRIPT EXISTS. */
function libraryProbe(functions: boolean): [string, ...string[]] {
  return functions ? ['FCALL_RO', 'emq_version', '0'] : ['SCRIPT', 'EXISTS', SCRIPT_SHA];
}

function stringOr(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function movedOrThrow(error: Error): typeof ELSEWHERE {
  if (/^MOVED /.test(error.message)) return ELSEWHERE;
  throw error;
}
