/**
 * The seam between the stack and whatever serves Valkey. Each cache kind (infra/cache/<kind>/)
 * is a construct that implements this, so the functions, the fence installer and the outputs
 * never know which one they talk to.
 */
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { IDependable } from 'constructs';
import type { FamilyChoice } from '../../src/settings/config.js';
import type { CacheRotation } from './rotation.js';
import { grantSecretRead } from './secret-read.js';

/** The EMQ_* variables that say where Valkey is and how to talk to it; never a password. */
export interface CacheConnectionEnvironment {
  readonly EMQ_URL: string;
  readonly EMQ_CLUSTER: 'true' | 'false';
  /** The family of admission calls the kind's servers run (its module in kinds/). */
  readonly EMQ_EXECUTOR: FamilyChoice;
  /** The secret `{"username","password"}` read at cold start, where the cache needs AUTH. */
  readonly EMQ_SECRET_ARN?: string;
}

/** The EMQ_* variables of IAM authentication (src/settings/config.ts): what the functions sign tokens for. */
export interface IamConnectionEnvironment {
  readonly EMQ_IAM_AUTH: 'true';
  /** The IAM-enabled user's id (its user name is the same). */
  readonly EMQ_USERNAME: string;
  /** The replication group id, the Serverless cache name or the MemoryDB cluster name. */
  readonly EMQ_IAM_CACHE_NAME: string;
  readonly EMQ_IAM_SERVERLESS: 'true' | 'false';
  /** The service tokens are signed for where it is not ElastiCache. */
  readonly EMQ_IAM_SERVICE?: 'memorydb';
}

/** IAM authentication of the functions (`cacheAuth=iam`); the installer keeps its password. */
export interface CacheIamAuth {
  /** Added to the functions' environment (which then holds no EMQ_SECRET_ARN). */
  readonly environment: IamConnectionEnvironment;
  /** `elasticache:Connect` (or `memorydb:Connect`) on this cache and this user, nothing else. */
  grantConnect(grantee: iam.IGrantable): void;
}

/**
 * The deploy-time installer's credentials (docs/deploy.md, "Into an existing account"): a user of
 * its own with the installer's rules (a secret, or IAM tokens), with which it installs; or, where
 * the cache has none (an existing cache given no `installer`), the functions' own, with which it
 * only verifies.
 */
export interface InstallerAccess {
  readonly mode: 'install' | 'verify';
  /**
   * The variables that name its credentials (EMQ_SECRET_ARN, or the EMQ_IAM_* of its user), in
   * place of the functions'; undefined in `verify` mode: the functions' variables apply.
   */
  readonly environment: Readonly<Record<string, string>> | undefined;
  /** Lets the installer read its secret (only its own) or connect as its IAM user. */
  grant(grantee: iam.IGrantable): void;
}

/** The installer of a cache with an installer user whose password is in `secret`. */
export function installerBySecret(secret: secretsmanager.ISecret): InstallerAccess {
  return {
    mode: 'install',
    environment: { EMQ_SECRET_ARN: secret.secretArn },
    grant: (grantee) => grantSecretRead(secret, grantee),
  };
}

/** What the alarms and the dashboard watch on a cache the stack owns; each list may hold many nodes. */
export interface CacheMetrics {
  /** Names one series in the dashboard ("ElastiCache node"). */
  readonly label: string;
  /** Engine CPU % per node, or processing units where there are no nodes. */
  readonly cpu: readonly cloudwatch.IMetric[];
  /** Memory used, % of what the node (or the storage limit) allows. */
  readonly memoryPercent: readonly cloudwatch.IMetric[];
  readonly evictions: readonly cloudwatch.IMetric[];
  /** Seconds each replica trails its primary; empty where no replica is visible. */
  readonly replicationLag: readonly cloudwatch.IMetric[];
  /** What the durability log adds (ElastiCache 9.x with `durability=sync|async`); else none. */
  readonly durabilityLog?: DurabilityLogMetrics | undefined;
}

/**
 * The CloudWatch metrics ElastiCache publishes for durable clusters (its "Durability:
 * Monitoring" page), per node; each list is empty where the mode makes the metric always 0.
 */
export interface DurabilityLogMetrics {
  /** ms the oldest acknowledged write waits for the log (DurabilityLag; async only). */
  readonly lag: readonly cloudwatch.IMetric[];
  /** Writes refused because that wait passed 10 s (DurabilityBufferExceededErrorCount; async only). */
  readonly bufferExceeded: readonly cloudwatch.IMetric[];
  /** 1 while writes are throttled to the log's throughput (TrafficManagementActive). */
  readonly throttled: readonly cloudwatch.IMetric[];
}

export interface CacheTarget {
  /** The registry's name of the kind (cache/registry.ts). */
  readonly kind: string;
  /** What to watch, where the stack owns the cache and CloudWatch has its metrics. */
  readonly metrics?: CacheMetrics;
  readonly connectionEnvironment: CacheConnectionEnvironment;
  /** host:port of the endpoint the functions use, for the stack output; no credentials. */
  readonly endpoint: string;
  /** Deploy-time steps that connect (the fence installer) wait for this: everything a connection needs. */
  readonly ready: IDependable;
  /** Opens the network path from this security group to the cache (both sides). */
  allowConnectionsFrom(group: ec2.ISecurityGroup): void;
  /** Lets a function read the functions' cache credentials, where there are any. */
  grantCredentials(grantee: iam.IGrantable): void;
  /** What the deploy-time installer connects as, and so whether it installs or only verifies. */
  readonly installer: InstallerAccess;
  /** Present where the functions authenticate with IAM tokens (`cacheAuth=iam`). */
  readonly iamAuth?: CacheIamAuth | undefined;
  /** The password users whose secrets rotate, where the construct created the cache and its service can. */
  readonly rotation?: CacheRotation | undefined;
}
