/**
 * The cache half of the settings: what each cache kind can choose, its defaults, and its
 * checks. settings.ts assembles it with the rest and reports every problem at once.
 */
import { existsSync } from 'node:fs';
import { ARM64_MODULE } from '../module/artifacts.js';
import { FUNCTIONS_RULES_NATIVE, INSTALLER_RULES_NATIVE } from '../src/access-rules.js';
import {
  type ElastiCacheSettings,
  resolveElastiCache,
  resolveServerless,
  type ServerlessCacheSettings,
} from './elasticache-settings.js';
import type { Check, IntCheck, Resolved } from './resolved.js';

export {
  CACHE_AUTHS,
  type CacheAuth,
  DEFAULT_ACCESS_STRING,
  type ElastiCacheSettings,
  INSTALLER_ACCESS_STRING,
  SERVERLESS_ACCESS_STRING,
  SERVERLESS_INSTALLER_ACCESS_STRING,
  type ServerlessCacheSettings,
} from './elasticache-settings.js';
export type { Resolved } from './resolved.js';

/** Where the functions find Valkey. */
export type CacheKind = 'elasticache' | 'serverless' | 'existing' | 'selfmanaged';
export const CACHE_KINDS: readonly CacheKind[] = [
  'elasticache',
  'serverless',
  'existing',
  'selfmanaged',
];

export interface ExistingCacheSettings {
  readonly kind: 'existing';
  /**
   * The server, or cluster seeds: `rediss://host:port`, `redis://host:port`, or `host:port`
   * (read as `rediss://`). Required. Any Valkey 7.2 or later: the functions run the native
   * family where every primary loads the EchoMQ module, else the function family (MemoryDB,
   * plain Valkey), chosen at connect (EMQ_EXECUTOR=auto).
   */
  readonly urls: readonly string[];
  /** The endpoint is a Valkey cluster. Default `true`. */
  readonly cluster?: boolean;
  /** Complete ARN of a Secrets Manager secret `{"username","password"}`. Default: none (no AUTH). */
  readonly secretArn?: string;
}

/** The functions' rules on a cluster that loads the module: the native family (src/access-rules.ts). */
export const SELFMANAGED_ACCESS_STRING = FUNCTIONS_RULES_NATIVE;

/** The installer's rules there: EMQ.WIRE.INSTALL and FUNCTION LOAD; not a setting. */
export const SELFMANAGED_INSTALLER_ACCESS_STRING = INSTALLER_RULES_NATIVE;

/** A Valkey cluster on EC2 that loads the EchoMQ module (functions run the native executor). */
export interface SelfManagedCacheSettings {
  readonly kind: 'selfmanaged';
  /**
   * Path of the EchoMQ module (`.so`) built for the nodes' CPU (arm64 on Graviton); deployed
   * as an S3 asset. Default `module/build/emq-arm64.so` (`make -C module arm64` builds it).
   */
  readonly moduleArtifact?: string;
  /** Primaries. Default `3`: a failover needs the votes of a majority of primaries. */
  readonly shards?: number;
  /** Replicas of each primary, 0 to 5 (0: no failover). Default `1`. */
  readonly replicasPerShard?: number;
  /** EC2 instance type of every node; a Graviton type (`t4g`, `m7g`, ...) runs arm64. Default `'t4g.small'`. */
  readonly instanceType?: string;
  /** TLS port of the nodes; their cluster bus listens on port + 10000. Default `6379`. */
  readonly port?: number;
  /** ACL rules of the functions' user. Default SELFMANAGED_ACCESS_STRING. */
  readonly accessString?: string;
  /** Size in GiB of each node's data volume (gp3, encrypted; holds the AOF). Default `20`. */
  readonly dataVolumeGiB?: number;
  /** Keep a snapshot of every data volume when the stack is deleted. Default `false`. */
  readonly snapshotOnDelete?: boolean;
  /**
   * Indexes of nodes whose instance an operator replaced; each mention launches that node
   * once more (see the README). Default `[]`.
   */
  readonly replacedNodes?: readonly number[];
}

export type CacheSettings =
  | ElastiCacheSettings
  | ServerlessCacheSettings
  | ExistingCacheSettings
  | SelfManagedCacheSettings;

export type ResolvedCache =
  | Resolved<ElastiCacheSettings>
  | Resolved<ServerlessCacheSettings>
  | (Resolved<Omit<ExistingCacheSettings, 'secretArn'>> & {
      readonly secretArn: string | undefined;
    })
  | (Resolved<SelfManagedCacheSettings> & {
      /** The identity the nodes load the module with: emq.wire. */
      readonly wire: string;
    });

/** Applies the defaults of one cache kind and reports what is wrong with it through `check` and `int`. */
export function resolveCache(
  input: CacheSettings,
  check: Check,
  int: IntCheck,
): Exclude<ResolvedCache, { kind: 'selfmanaged' }> | Resolved<SelfManagedCacheSettings> {
  switch (input.kind) {
    case 'elasticache':
      return resolveElastiCache(input, check, int);
    case 'serverless':
      return resolveServerless(input, check, int);
    case 'existing': {
      const urls = input.urls.map(normaliseUrl);
      check(
        urls.length > 0,
        'cache=existing needs valkeyEndpoint (host:port or rediss://host:port).',
      );
      for (const [index, url] of urls.entries()) {
        check(
          url !== undefined,
          `valkeyEndpoint entry ${index + 1} must be host:port, redis://host:port or rediss://host:port.`,
        );
      }
      const secretArn = input.secretArn;
      check(
        secretArn === undefined ||
          /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:\S+-[A-Za-z0-9]{6}$/.test(
            secretArn,
          ),
        "valkeySecretArn must be a Secrets Manager secret's complete ARN (ending in -XXXXXX).",
      );
      return {
        kind: input.kind,
        urls: urls.filter((url): url is string => url !== undefined),
        cluster: input.cluster ?? true,
        secretArn,
      };
    }
    case 'selfmanaged': {
      const cache = {
        kind: input.kind,
        moduleArtifact: input.moduleArtifact ?? ARM64_MODULE,
        shards: input.shards ?? 3,
        replicasPerShard: input.replicasPerShard ?? 1,
        instanceType: input.instanceType ?? 't4g.small',
        port: input.port ?? 6379,
        accessString: input.accessString ?? SELFMANAGED_ACCESS_STRING,
        dataVolumeGiB: input.dataVolumeGiB ?? 20,
        snapshotOnDelete: input.snapshotOnDelete ?? false,
        replacedNodes: input.replacedNodes ?? [],
      };
      check(
        cache.moduleArtifact !== '',
        'cache=selfmanaged needs moduleArtifact, the path of the EchoMQ module (.so) the nodes load.',
      );
      check(
        cache.moduleArtifact === '' || existsSync(cache.moduleArtifact),
        `moduleArtifact ${cache.moduleArtifact} does not exist (make -C module arm64 builds ${ARM64_MODULE}).`,
      );
      int('selfManagedShards', cache.shards, 1, 30);
      int('selfManagedReplicas', cache.replicasPerShard, 0, 5);
      // Valkey promotes a replica by a majority of the slot-owning primaries: with one or two
      // shards, losing a primary leaves no majority, and its replica is never promoted.
      check(
        cache.replicasPerShard === 0 || cache.shards < 1 || cache.shards >= 3,
        `selfManagedShards must be at least 3 with replicas (got ${cache.shards}): a replica is promoted by a majority of the primaries, which ${cache.shards} shard${cache.shards === 1 ? '' : 's'} cannot give once one is lost. Use 3 or more shards, or selfManagedReplicas=0 for a cluster without failover.`,
      );
      check(
        /^[a-z][a-z0-9-]*\.[a-z0-9]+$/.test(cache.instanceType),
        'instanceType must look like t4g.small.',
      );
      // The cluster bus listens on port + 10000.
      int('port', cache.port, 1_024, 55_535);
      // The rules reach the nodes inside single quotes of a shell settings file.
      check(
        /^on\s[^'\n]*$/.test(cache.accessString),
        "accessString must start with 'on' and hold no quote.",
      );
      int('dataVolumeGiB', cache.dataVolumeGiB, 1, 16_384);
      const nodes = cache.shards * (cache.replicasPerShard + 1);
      check(
        nodes < 1 ||
          cache.replacedNodes.every(
            (index) => Number.isSafeInteger(index) && index >= 0 && index < nodes,
          ),
        `replacedNodes must name node indexes from 0 to ${nodes - 1}.`,
      );
      return cache;
    }
    default:
      check(false, `cache must be one of ${CACHE_KINDS.join(', ')}.`);
      return input;
  }
}

/** `host:port` means TLS; a URL keeps its scheme. Undefined when the value is no endpoint. */
export function normaliseUrl(value: string): string | undefined {
  const text = value.trim();
  const url = /^[a-z]+:\/\//.test(text) ? text : `rediss://${text}`;
  try {
    const parsed = new URL(url);
    const ok =
      (parsed.protocol === 'redis:' || parsed.protocol === 'rediss:') &&
      parsed.hostname !== '' &&
      parsed.port !== '' &&
      parsed.username === '' &&
      parsed.password === '' &&
      (parsed.pathname === '' || parsed.pathname === '/');
    return ok ? `${parsed.protocol}//${parsed.host}` : undefined;
  } catch {
    return undefined;
  }
}
