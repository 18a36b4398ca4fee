/**
 * The cache half of the settings: what each cache kind can choose, its defaults, and its
 * checks. settings.ts assembles it with the rest and reports every problem at once.
 */
import { existsSync } from 'node:fs';
import { ARM64_MODULE } from '../module/artifacts.js';
import {
  FUNCTIONS_RULES_FUNCTION,
  FUNCTIONS_RULES_NATIVE,
  FUNCTIONS_RULES_SCRIPT,
  INSTALLER_RULES_FUNCTION,
  INSTALLER_RULES_NATIVE,
  INSTALLER_RULES_SCRIPT,
} from '../src/access-rules.js';
import {
  checkDurability,
  DEFAULT_DURABILITY,
  type Durability,
  defaultNodeType,
} from './durability-settings.js';

/** Where the functions find Valkey. */
export type CacheKind = 'elasticache' | 'serverless' | 'existing' | 'selfmanaged';
export const CACHE_KINDS: readonly CacheKind[] = [
  'elasticache',
  'serverless',
  'existing',
  'selfmanaged',
];

/**
 * The ACL rules of the functions' ElastiCache (node-based) user: the function family of the
 * `emq` library on the queue keys with its inner commands, the connector's checks, WAIT and
 * the reads (src/access-rules.ts explains each grant; the ACL tests apply this very string).
 */
export const DEFAULT_ACCESS_STRING = FUNCTIONS_RULES_FUNCTION;

/** The installer's ElastiCache (node-based) user (identity and library); not a setting. */
export const INSTALLER_ACCESS_STRING = INSTALLER_RULES_FUNCTION;

/** The functions' user on ElastiCache Serverless: the script family (EVALSHA), no WAIT. */
export const SERVERLESS_ACCESS_STRING = FUNCTIONS_RULES_SCRIPT;

/** The installer's Serverless user (SCRIPT LOAD and the identity); not a setting. */
export const SERVERLESS_INSTALLER_ACCESS_STRING = INSTALLER_RULES_SCRIPT;

/**
 * How the functions authenticate to an ElastiCache cache: a password user whose password lives
 * in Secrets Manager, or an IAM-enabled user and 15-minute tokens signed with the functions'
 * role (`elasticache:Connect`). The deploy-time installer keeps a password either way.
 */
export type CacheAuth = 'password' | 'iam';
export const CACHE_AUTHS: readonly CacheAuth[] = ['password', 'iam'];

export interface ElastiCacheSettings {
  readonly kind: 'elasticache';
  /** How the functions authenticate (`-c cacheAuth`). Default `'password'`. */
  readonly cacheAuth?: CacheAuth;
  /**
   * The Multi-AZ transaction log of ElastiCache 9.x (`-c durability`, durability-settings.ts):
   * `sync` (an acknowledged write is in the log; the functions send no WAIT), `async` (the
   * log trails by up to 10 s; WAIT on a replica as without it) or `off`. Chosen at creation:
   * CloudFormation cannot turn it on or off later. Default `'sync'`.
   */
  readonly durability?: Durability;
  /**
   * Node type of every node. Default `cache.m7g.large` with durability (the smallest
   * general-purpose node it runs on), `cache.t4g.small` with `durability=off`.
   */
  readonly nodeType?: string;
  /** Shards (node groups) of the cluster. Default `2`. */
  readonly shards?: number;
  /** Replicas per shard, 1 to 5; Multi-AZ with automatic failover needs at least 1. Default `1`. */
  readonly replicasPerShard?: number;
  /** Valkey engine version (7.2 or later; durability needs 9.x). Default `'9.1'`. */
  readonly engineVersion?: string;
  /** TCP port of the nodes. Default `6379`. */
  readonly port?: number;
  /** ACL rules of the functions' RBAC user. Default DEFAULT_ACCESS_STRING. */
  readonly accessString?: string;
  /** Days of automatic daily snapshots kept; 0 turns them off. Default `1`. */
  readonly snapshotRetentionDays?: number;
}

/**
 * ElastiCache Serverless for Valkey: one TLS endpoint in cluster mode, billed by data stored and
 * ElastiCache Processing Units. It has no FCALL, FUNCTION or WAIT, so the functions run the
 * script family with EMQ_ACK_REPLICAS=0; its forced `volatile-lru` evicts nothing the
 * functions write (no key of theirs has a TTL, SPEC §11): at the storage limit writes fail.
 * It offers no durability.
 */
export interface ServerlessCacheSettings {
  readonly kind: 'serverless';
  /** How the functions authenticate (`-c cacheAuth`). Default `'password'`. */
  readonly cacheAuth?: CacheAuth;
  /** Valkey major version. Default `'8'`. */
  readonly majorEngineVersion?: string;
  /** Most data stored, in GB (1 to 5000): above it the service evicts keys with a TTL. Default `10`. */
  readonly dataStorageMaxGb?: number;
  /** Most ElastiCache Processing Units per second (1000 to 15,000,000). Default `100000`. */
  readonly ecpuPerSecondMax?: number;
  /** ACL rules of the functions' RBAC user. Default SERVERLESS_ACCESS_STRING. */
  readonly accessString?: string;
  /** Days of automatic daily snapshots kept; 0 turns them off. Default `1`. */
  readonly snapshotRetentionDays?: number;
}

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

/** A settings object with every default applied. */
export type Resolved<T> = { readonly [K in keyof T]-?: Exclude<T[K], undefined> };

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
  check: (ok: boolean, problem: string) => void,
  int: (name: string, value: number, min: number, max: number) => void,
): Exclude<ResolvedCache, { kind: 'selfmanaged' }> | Resolved<SelfManagedCacheSettings> {
  switch (input.kind) {
    case 'elasticache': {
      const durability = input.durability ?? DEFAULT_DURABILITY;
      const cache = {
        kind: input.kind,
        cacheAuth: input.cacheAuth ?? 'password',
        durability,
        nodeType: input.nodeType ?? defaultNodeType(durability),
        shards: input.shards ?? 2,
        replicasPerShard: input.replicasPerShard ?? 1,
        engineVersion: input.engineVersion ?? '9.1',
        port: input.port ?? 6379,
        accessString: input.accessString ?? DEFAULT_ACCESS_STRING,
        snapshotRetentionDays: input.snapshotRetentionDays ?? 1,
      };
      check(
        /^cache\.[a-z0-9-]+\.[a-z0-9]+$/.test(cache.nodeType),
        'nodeType must look like cache.t4g.small.',
      );
      int('shards', cache.shards, 1, 500);
      int('replicasPerShard', cache.replicasPerShard, 1, 5);
      const offered = /^(7\.2|8\.[0-2]|9\.[0-1])$/.test(cache.engineVersion);
      check(
        offered,
        'engineVersion must be a Valkey version ElastiCache offers: 7.2, 8.0 to 8.2, 9.0 or 9.1.',
      );
      int('port', cache.port, 1_024, 65_535);
      check(/^on\s/.test(cache.accessString), "accessString must start with 'on'.");
      int('snapshotRetentionDays', cache.snapshotRetentionDays, 0, 35);
      checkCacheAuth(cache.cacheAuth, check);
      // An engine ElastiCache does not offer is its own problem, not also durability's.
      checkDurability(
        { ...cache, engineVersion: offered ? cache.engineVersion : undefined },
        check,
      );
      return cache;
    }
    case 'serverless': {
      const cache = {
        kind: input.kind,
        cacheAuth: input.cacheAuth ?? 'password',
        majorEngineVersion: input.majorEngineVersion ?? '8',
        dataStorageMaxGb: input.dataStorageMaxGb ?? 10,
        ecpuPerSecondMax: input.ecpuPerSecondMax ?? 100_000,
        accessString: input.accessString ?? SERVERLESS_ACCESS_STRING,
        snapshotRetentionDays: input.snapshotRetentionDays ?? 1,
      };
      check(
        /^(7|8|9)$/.test(cache.majorEngineVersion),
        "serverlessEngineVersion must be a Valkey major version: '7', '8' or '9'.",
      );
      int('dataStorageMaxGb', cache.dataStorageMaxGb, 1, 5_000);
      int('ecpuPerSecondMax', cache.ecpuPerSecondMax, 1_000, 15_000_000);
      check(/^on\s/.test(cache.accessString), "accessString must start with 'on'.");
      int('snapshotRetentionDays', cache.snapshotRetentionDays, 0, 35);
      checkCacheAuth(cache.cacheAuth, check);
      return cache;
    }
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

function checkCacheAuth(value: string, check: (ok: boolean, problem: string) => void): void {
  check(
    CACHE_AUTHS.some((known) => known === value),
    `cacheAuth must be one of ${CACHE_AUTHS.join(', ')}; got '${value}'.`,
  );
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
