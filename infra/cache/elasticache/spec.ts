/** The node-based ElastiCache kind's spec: its users' rules, defaults and checks. */
import {
  FUNCTIONS_RULES_FUNCTION,
  INSTALLER_RULES_FUNCTION,
} from '../../../src/families/access-rules.js';
import type { Ensure, EnsureInt, Resolved } from '../../shared/resolved.js';
import { type CacheAuth, checkCacheAuth } from '../auth.js';
import {
  checkDurability,
  DEFAULT_DURABILITY,
  type Durability,
  defaultNodeType,
} from './durability.js';

/**
 * The ACL rules of the functions' ElastiCache (node-based) user: the function family of the
 * `emq` library on the queue keys with its inner commands, the connector's checks, WAIT and
 * the reads (src/families/access-rules.ts explains each grant; the ACL tests apply this very string).
 */
export const DEFAULT_ACCESS_STRING = FUNCTIONS_RULES_FUNCTION;

/** The installer's ElastiCache (node-based) user (identity and library); not a setting. */
export const INSTALLER_ACCESS_STRING = INSTALLER_RULES_FUNCTION;

export interface ElastiCacheSpec {
  readonly kind: 'elasticache';
  /**
   * How the functions authenticate (`-c cacheAuth`).
   * @default `'password'`
   */
  readonly cacheAuth?: CacheAuth;
  /**
   * The Multi-AZ transaction log of ElastiCache 9.x (`-c durability`, durability.ts): `sync` (an
   * acknowledged write is in the log; the functions send no WAIT), `async` (the log trails by up to
   * 10 s; WAIT on a replica as without it) or `off`. Chosen at creation: CloudFormation cannot turn
   * it on or off later.
   * @default `'sync'`
   */
  readonly durability?: Durability;
  /**
   * Node type of every node.
   * @default `cache.m7g.large` with durability (the smallest general-purpose node it runs on), `cache.t4g.small` with `durability=off`
   */
  readonly nodeType?: string;
  /**
   * Shards (node groups) of the cluster.
   * @default `2`
   */
  readonly shards?: number;
  /**
   * Replicas per shard, 1 to 5; Multi-AZ with automatic failover needs at least 1.
   * @default `1`
   */
  readonly replicasPerShard?: number;
  /**
   * Valkey engine version (7.2 or later; durability needs 9.x).
   * @default `'9.1'`
   */
  readonly engineVersion?: string;
  /**
   * TCP port of the nodes.
   * @default `6379`
   */
  readonly port?: number;
  /**
   * ACL rules of the functions' RBAC user.
   * @default DEFAULT_ACCESS_STRING
   */
  readonly accessString?: string;
  /**
   * Days of automatic daily snapshots kept; 0 turns them off.
   * @default `1`
   */
  readonly snapshotRetentionDays?: number;
}

/** The node-based cluster's defaults and checks. */
export function resolveElastiCache(
  input: ElastiCacheSpec,
  ensure: Ensure,
  int: EnsureInt,
): Resolved<ElastiCacheSpec> {
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
  ensure(
    /^cache\.[a-z0-9-]+\.[a-z0-9]+$/.test(cache.nodeType),
    'nodeType must look like cache.t4g.small.',
  );
  int('shards', cache.shards, 1, 500);
  int('replicasPerShard', cache.replicasPerShard, 1, 5);
  const offered = /^(7\.2|8\.[0-2]|9\.[0-1])$/.test(cache.engineVersion);
  ensure(
    offered,
    'engineVersion must be a Valkey version ElastiCache offers: 7.2, 8.0 to 8.2, 9.0 or 9.1.',
  );
  int('port', cache.port, 1_024, 65_535);
  ensure(/^on\s/.test(cache.accessString), "accessString must start with 'on'.");
  int('snapshotRetentionDays', cache.snapshotRetentionDays, 0, 35);
  checkCacheAuth(cache.cacheAuth, ensure);
  // An engine ElastiCache does not offer is its own problem, not also durability's.
  checkDurability({ ...cache, engineVersion: offered ? cache.engineVersion : undefined }, ensure);
  return cache;
}
