/**
 * The ElastiCache half of the cache settings: the node-based cluster and Serverless, their
 * users' rules, defaults and checks. cache-settings.ts dispatches on the kind.
 */
import {
  FUNCTIONS_RULES_FUNCTION,
  FUNCTIONS_RULES_SCRIPT,
  INSTALLER_RULES_FUNCTION,
  INSTALLER_RULES_SCRIPT,
} from '../src/access-rules.js';
import {
  checkDurability,
  DEFAULT_DURABILITY,
  type Durability,
  defaultNodeType,
} from './durability-settings.js';
import type { Check, IntCheck, Resolved } from './resolved.js';

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

/** The node-based cluster's defaults and checks. */
export function resolveElastiCache(
  input: ElastiCacheSettings,
  check: Check,
  int: IntCheck,
): Resolved<ElastiCacheSettings> {
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
  checkDurability({ ...cache, engineVersion: offered ? cache.engineVersion : undefined }, check);
  return cache;
}

/** The Serverless cache's defaults and checks. */
export function resolveServerless(
  input: ServerlessCacheSettings,
  check: Check,
  int: IntCheck,
): Resolved<ServerlessCacheSettings> {
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

function checkCacheAuth(value: string, check: Check): void {
  check(
    CACHE_AUTHS.some((known) => known === value),
    `cacheAuth must be one of ${CACHE_AUTHS.join(', ')}; got '${value}'.`,
  );
}
