/**
 * The MemoryDB kind's spec: a MemoryDB for Valkey cluster the stack creates. MemoryDB keeps
 * every write in a Multi-AZ transaction log before it acknowledges it, so the functions send no
 * WAIT (EMQ_ACK_REPLICAS=0): a replica is never the only copy of an admitted job. It runs
 * FUNCTION and FCALL (its restricted commands are the ACL, CONFIG, MODULE, persistence and
 * slot-assignment ones), so the functions run the function family, under its rules.
 */
import {
  FUNCTIONS_RULES_FUNCTION,
  INSTALLER_RULES_FUNCTION,
} from '../../../src/families/access-rules.js';
import type { Ensure, EnsureInt, Resolved } from '../../shared/resolved.js';
import { type CacheAuth, checkCacheAuth } from '../auth.js';

/** The functions' MemoryDB user: the function family's rules (src/families/access-rules.ts). */
export const MEMORYDB_ACCESS_STRING = FUNCTIONS_RULES_FUNCTION;

/** The installer's MemoryDB user (identity and library); not a setting. */
export const MEMORYDB_INSTALLER_ACCESS_STRING = INSTALLER_RULES_FUNCTION;

export interface MemoryDbSpec {
  readonly kind: 'memorydb';
  /**
   * How the functions authenticate (`-c cacheAuth`): a password user, or IAM tokens signed for
   * `memorydb`.
   * @default `'password'`
   */
  readonly cacheAuth?: CacheAuth;
  /**
   * Node type of every node.
   * @default `db.t4g.small`
   */
  readonly nodeType?: string;
  /**
   * Shards of the cluster, 1 to 500; with their replicas at most 500 nodes in all.
   * @default `1`
   */
  readonly shards?: number;
  /**
   * Replicas per shard, 0 to 5; 1 or more keeps the cluster serving through an AZ's loss.
   * @default `1`
   */
  readonly replicasPerShard?: number;
  /**
   * Valkey engine version MemoryDB offers (7.2 or 7.3).
   * @default `'7.3'`
   */
  readonly engineVersion?: string;
  /**
   * TCP port of the nodes.
   * @default `6379`
   */
  readonly port?: number;
  /**
   * ACL rules of the functions' user.
   * @default MEMORYDB_ACCESS_STRING
   */
  readonly accessString?: string;
  /**
   * Days of automatic daily snapshots kept; 0 turns them off.
   * @default `1`
   */
  readonly snapshotRetentionDays?: number;
}

export type ResolvedMemoryDb = Resolved<MemoryDbSpec>;

export function resolveMemoryDb(
  input: MemoryDbSpec,
  ensure: Ensure,
  int: EnsureInt,
): ResolvedMemoryDb {
  const cache = {
    kind: input.kind,
    cacheAuth: input.cacheAuth ?? 'password',
    nodeType: input.nodeType ?? 'db.t4g.small',
    shards: input.shards ?? 1,
    replicasPerShard: input.replicasPerShard ?? 1,
    engineVersion: input.engineVersion ?? '7.3',
    port: input.port ?? 6379,
    accessString: input.accessString ?? MEMORYDB_ACCESS_STRING,
    snapshotRetentionDays: input.snapshotRetentionDays ?? 1,
  };
  ensure(
    /^db\.[a-z0-9-]+\.[a-z0-9]+$/.test(cache.nodeType),
    'memoryDbNodeType must look like db.t4g.small.',
  );
  int('memoryDbShards', cache.shards, 1, 500);
  int('memoryDbReplicas', cache.replicasPerShard, 0, 5);
  // MemoryDB's own limit is on nodes, not shards: up to 500 in a cluster, replicas included.
  ensure(
    cache.shards * (cache.replicasPerShard + 1) <= 500,
    `memoryDbShards × (memoryDbReplicas + 1) must be at most 500 nodes (MemoryDB's limit per cluster); ${cache.shards} × ${cache.replicasPerShard + 1} is ${cache.shards * (cache.replicasPerShard + 1)}.`,
  );
  ensure(
    /^7\.[23]$/.test(cache.engineVersion),
    'memoryDbEngineVersion must be a Valkey version MemoryDB offers: 7.2 or 7.3.',
  );
  int('port', cache.port, 1_024, 65_535);
  ensure(/^on\s/.test(cache.accessString), "accessString must start with 'on'.");
  int('snapshotRetentionDays', cache.snapshotRetentionDays, 0, 35);
  checkCacheAuth(cache.cacheAuth, ensure);
  return cache;
}
