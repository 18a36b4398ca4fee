/**
 * The seam between the stack and whatever serves Valkey. Each cache kind (ElastiCache, an
 * existing endpoint, and later a self-managed cluster) is a construct that implements this, so
 * the functions, the fence installer and the outputs never know which one they talk to.
 */
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type { IDependable } from 'constructs';
import type { CacheKind } from '../settings.js';

/** The EMQ_* variables that say where Valkey is and how to talk to it; never a password. */
export interface CacheConnectionEnvironment {
  readonly EMQ_URL: string;
  readonly EMQ_CLUSTER: 'true' | 'false';
  /** `script` where the server loads no module (ElastiCache), else `native`. */
  readonly EMQ_EXECUTOR: 'native' | 'function';
  /** The secret `{"username","password"}` read at cold start, where the cache needs AUTH. */
  readonly EMQ_SECRET_ARN?: string;
}

export interface EchoMqCache {
  readonly kind: CacheKind;
  readonly connectionEnvironment: CacheConnectionEnvironment;
  /** host:port of the endpoint the functions use, for the stack output; no credentials. */
  readonly endpoint: string;
  /** Deploy-time steps that connect (the fence installer) wait for this: everything a connection needs. */
  readonly ready: IDependable;
  /** Opens the network path from this security group to the cache (both sides). */
  allowConnectionsFrom(group: ec2.ISecurityGroup): void;
  /** Lets a function read the cache credentials, where there are any. */
  grantCredentials(grantee: iam.IGrantable): void;
}
