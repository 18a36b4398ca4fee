/** The ElastiCache Serverless kind's spec: its users' rules, defaults and checks. */
import {
  FUNCTIONS_RULES_SCRIPT,
  INSTALLER_RULES_SCRIPT,
} from '../../../src/families/access-rules.js';
import type { Ensure, EnsureInt, Resolved } from '../../shared/resolved.js';
import { type CacheAuth, checkCacheAuth } from '../auth.js';

/** The functions' user on ElastiCache Serverless: the script family (EVALSHA), no WAIT. */
export const SERVERLESS_ACCESS_STRING = FUNCTIONS_RULES_SCRIPT;

/** The installer's Serverless user (SCRIPT LOAD and the identity); not a setting. */
export const SERVERLESS_INSTALLER_ACCESS_STRING = INSTALLER_RULES_SCRIPT;

/**
 * ElastiCache Serverless for Valkey: one TLS endpoint in cluster mode, billed by data stored and
 * ElastiCache Processing Units. It has no FCALL, FUNCTION or WAIT, so the functions run the
 * script family with EMQ_ACK_REPLICAS=0; its forced `volatile-lru` evicts nothing the
 * functions write (no key of theirs has a TTL, docs/reliability.md "Acknowledgements"): at the
 * storage limit writes fail. It offers no durability.
 */
export interface ServerlessSpec {
  readonly kind: 'serverless';
  /**
   * How the functions authenticate (`-c cacheAuth`).
   * @default `'password'`
   */
  readonly cacheAuth?: CacheAuth;
  /**
   * Valkey major version.
   * @default `'8'`
   */
  readonly majorEngineVersion?: string;
  /**
   * Most data stored, in GB (1 to 5000): above it the service evicts keys with a TTL.
   * @default `10`
   */
  readonly dataStorageMaxGb?: number;
  /**
   * Most ElastiCache Processing Units per second (1000 to 15,000,000).
   * @default `100000`
   */
  readonly ecpuPerSecondMax?: number;
  /**
   * ACL rules of the functions' RBAC user.
   * @default SERVERLESS_ACCESS_STRING
   */
  readonly accessString?: string;
  /**
   * Days of automatic daily snapshots kept; 0 turns them off.
   * @default `1`
   */
  readonly snapshotRetentionDays?: number;
}

/** The Serverless cache's defaults and checks. */
export function resolveServerless(
  input: ServerlessSpec,
  ensure: Ensure,
  int: EnsureInt,
): Resolved<ServerlessSpec> {
  const cache = {
    kind: input.kind,
    cacheAuth: input.cacheAuth ?? 'password',
    majorEngineVersion: input.majorEngineVersion ?? '8',
    dataStorageMaxGb: input.dataStorageMaxGb ?? 10,
    ecpuPerSecondMax: input.ecpuPerSecondMax ?? 100_000,
    accessString: input.accessString ?? SERVERLESS_ACCESS_STRING,
    snapshotRetentionDays: input.snapshotRetentionDays ?? 1,
  };
  ensure(
    /^(7|8|9)$/.test(cache.majorEngineVersion),
    "serverlessEngineVersion must be a Valkey major version: '7', '8' or '9'.",
  );
  int('dataStorageMaxGb', cache.dataStorageMaxGb, 1, 5_000);
  int('ecpuPerSecondMax', cache.ecpuPerSecondMax, 1_000, 15_000_000);
  ensure(/^on\s/.test(cache.accessString), "accessString must start with 'on'.");
  int('snapshotRetentionDays', cache.snapshotRetentionDays, 0, 35);
  checkCacheAuth(cache.cacheAuth, ensure);
  return cache;
}
