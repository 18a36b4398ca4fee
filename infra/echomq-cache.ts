/**
 * The cache an EchoMq construct uses (SPEC §12): one it creates (node-based ElastiCache,
 * ElastiCache Serverless, a self-managed cluster that loads the EchoMQ module) or one that
 * exists (any Valkey 7.2 or later, MemoryDB included).
 */
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { ExecutorChoice } from '../src/settings/config.js';
import type { ElastiCacheSettings } from './cache/elasticache/settings.js';
import type { ExistingIamAuth } from './cache/existing/kind.js';
import type { MemoryDbCacheSettings } from './cache/memorydb/kind.js';
import type { CacheSettings } from './cache/registry.js';
import type { SelfManagedCacheSettings } from './cache/selfmanaged/kind.js';
import type { ServerlessCacheSettings } from './cache/serverless/settings.js';

/** Where a cache the construct creates places its nodes. Default: the functions' subnets. */
interface Placement {
  /** The subnets of the cache's nodes. Default: the functions' subnets. */
  readonly vpcSubnets?: ec2.SubnetSelection;
}

export type ElastiCacheOptions = Omit<ElastiCacheSettings, 'kind'> & Placement;
export type ServerlessOptions = Omit<ServerlessCacheSettings, 'kind'> & Placement;
export type SelfManagedOptions = Omit<SelfManagedCacheSettings, 'kind'> & Placement;
export type MemoryDbOptions = Omit<MemoryDbCacheSettings, 'kind'> & Placement;

export interface ExistingOptions {
  /** `host:port`, comma-separated cluster seeds, or `rediss://` / `redis://` URLs. */
  readonly endpoint: string;
  /** The endpoint is a Valkey cluster. Default `true`. */
  readonly cluster?: boolean;
  /** TLS to a `host:port` endpoint. Default `true`. */
  readonly tls?: boolean;
  /** The cache's security group: the construct admits the functions on the endpoint's port. */
  readonly securityGroup?: ec2.ISecurityGroup;
  /** A Secrets Manager secret `{"username","password"}`. Default: none (no AUTH). */
  readonly secret?: secretsmanager.ISecret;
  /** ElastiCache IAM tokens for this user, instead of a secret. */
  readonly iam?: ExistingIamAuth;
  /** The family of admission calls. Default `auto`: native where the module is loaded, else function. */
  readonly executor?: ExecutorChoice;
  /**
   * The credentials the deploy-time installer uses: a user with the installer's rules of
   * docs/security.md (`SET` of `{emq}:version`, `FUNCTION LOAD` or `SCRIPT LOAD`), by secret or
   * IAM. The installer function may read this secret only. Default: none; the installer
   * connects as the functions' user and only verifies that every primary already holds this
   * version's identity and library (run `emq install` as an administrator first), failing the
   * deploy otherwise.
   */
  readonly installer?:
    | { readonly secret: secretsmanager.ISecret }
    | { readonly iam: ExistingIamAuth };
}

export class EchoMqCache {
  /** Node-based ElastiCache for Valkey in cluster mode (default: 2 shards, 1 replica each, durability sync). */
  static elastiCache(options: ElastiCacheOptions = {}): EchoMqCache {
    const { vpcSubnets, ...settings } = options;
    return new EchoMqCache({ kind: 'elasticache', ...settings }, vpcSubnets);
  }

  /** ElastiCache Serverless for Valkey. */
  static serverless(options: ServerlessOptions = {}): EchoMqCache {
    const { vpcSubnets, ...settings } = options;
    return new EchoMqCache({ kind: 'serverless', ...settings }, vpcSubnets);
  }

  /** A Valkey cluster on EC2 that loads the EchoMQ module. */
  static selfManaged(options: SelfManagedOptions = {}): EchoMqCache {
    const { vpcSubnets, ...settings } = options;
    return new EchoMqCache({ kind: 'selfmanaged', ...settings }, vpcSubnets);
  }

  /** MemoryDB for Valkey (default: 1 shard, 1 replica; every write in its Multi-AZ transaction log). */
  static memoryDb(options: MemoryDbOptions = {}): EchoMqCache {
    const { vpcSubnets, ...settings } = options;
    return new EchoMqCache({ kind: 'memorydb', ...settings }, vpcSubnets);
  }

  /** A Valkey 7.2+ endpoint (ElastiCache, MemoryDB, your own) the construct does not own. */
  static existing(options: ExistingOptions): EchoMqCache {
    const { endpoint, tls = true, ...rest } = options;
    const urls = endpoint
      .split(',')
      .map((seed) => seed.trim())
      .map((seed) => (/^[a-z]+:\/\//.test(seed) || tls ? seed : `redis://${seed}`));
    return new EchoMqCache({ kind: 'existing', urls, ...rest });
  }

  /** The cache that plain settings describe (the app's context). */
  static fromSettings(settings: CacheSettings, vpcSubnets?: ec2.SubnetSelection): EchoMqCache {
    return new EchoMqCache(settings, vpcSubnets);
  }

  private constructor(
    readonly settings: CacheSettings,
    readonly vpcSubnets?: ec2.SubnetSelection,
  ) {}
}
