/**
 * A profile with every value read (stack-settings.ts) and its unavailable commands split by
 * how they are taken away (profiles.ts says which; this says how):
 * - a whole command this binary knows is renamed: to "" (unknown, for everyone), or, where the
 *   harness itself needs it (DEBUG DIGEST, CONFIG, FUNCTION FLUSH, MEMORY), to a name made
 *   here at random that the product cannot know;
 * - a subcommand, and a whole command the servers need for their own replication (PSYNC,
 *   SYNC on a target with replicas), is refused by the proxies instead.
 */
import { randomBytes } from 'node:crypto';
import {
  type Count,
  PROFILES,
  type ProfileName,
  type Setting,
  type TargetProfile,
} from './profiles.js';
import type { ProxyRules } from './proxy-rules.js';
import { stackCount, stackSettings } from './stack-settings.js';
import type { KnownCommands } from './valkey-commands.js';

/** Unavailable commands the harness keeps, under its own names. */
const HARNESS_KEEPS = new Set(['debug', 'config', 'function', 'memory']);
/** Commands a replica sends its primary: renaming them would stop replication. */
const REPLICATION_NEEDS = new Set(['psync', 'sync']);
/** Random per process: no product code can name the harness's commands. */
const NONCE = randomBytes(4).toString('hex');

export interface ResolvedProfile {
  readonly profile: TargetProfile;
  readonly name: ProfileName;
  readonly cluster: boolean;
  readonly shards: number;
  readonly replicasPerShard: number;
  readonly nodeCount: number;
  /** `[name, value]` server settings, in order. */
  readonly settings: ReadonlyArray<readonly [string, string]>;
  /** `--rename-command` pairs: original name, new name ("" for gone). */
  readonly renames: ReadonlyArray<readonly [string, string]>;
  /** What the proxies refuse, and the limits they hold (exempting the harness user). */
  readonly refuse: ReadonlySet<string>;
  readonly unavailable: ReadonlySet<string>;
  readonly supported: ReadonlySet<string> | undefined;
}

export function resolveProfile(
  name: ProfileName | TargetProfile,
  known: KnownCommands,
): ResolvedProfile {
  const profile = typeof name === 'string' ? PROFILES[name] : name;
  const { topology } = profile;
  const cluster = topology.kind === 'cluster';
  const shards = cluster ? count(topology.shards) : 1;
  const replicasPerShard = cluster ? count(topology.replicasPerShard) : 0;
  const unavailable = new Set(profile.unavailable);
  const renames: Array<[string, string]> = [];
  const refuse = new Set<string>();
  for (const entry of unavailable) {
    if (entry.includes('|')) refuse.add(entry);
    else if (replicasPerShard > 0 && REPLICATION_NEEDS.has(entry)) refuse.add(entry);
    else if (known.names.has(entry))
      renames.push([entry, HARNESS_KEEPS.has(entry) ? harnessName(entry) : '']);
  }
  return {
    profile,
    name: profile.name,
    cluster,
    shards,
    replicasPerShard,
    nodeCount: shards * (1 + replicasPerShard),
    settings: profile.settings.flatMap(settingPairs),
    renames,
    refuse,
    unavailable,
    supported: profile.supported === undefined ? undefined : new Set(profile.supported),
  };
}

/** The proxies' rules for a resolved profile; `exemptUser` is the harness's. */
export function proxyRules(resolved: ResolvedProfile, exemptUser: string): ProxyRules {
  const { limits } = resolved.profile;
  return {
    refuse: resolved.refuse,
    maxArguments: limits.maxArguments,
    refuseKeylessScripts: limits.refuseKeylessScripts,
    scriptFlushIsNoop: limits.scriptFlushIsNoop,
    exemptUser,
  };
}

export function harnessName(command: string): string {
  return `emq-harness-${NONCE}-${command}`;
}

function count(value: Count): number {
  return typeof value === 'number' ? value : stackCount(value);
}

function settingPairs(setting: Setting): Array<readonly [string, string]> {
  return 'fromStack' in setting ? stackSettings(setting) : [setting];
}
