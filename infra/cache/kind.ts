/**
 * What one cache kind brings, in one module (infra/cache/<kind>/kind.ts): its settings and
 * their checks, the context keys that choose them, the family of admission calls its servers
 * run, what it says about acknowledged writes, and the construct that serves it. The registry
 * (registry.ts) holds one row per kind, and the compiler checks each row against this shape.
 */
import type { RemovalPolicy } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { ExecutorChoice } from '../../src/settings/config.js';
import type { Ensure, EnsureInt } from '../resolved.js';
import type { CacheTarget } from './cache.js';
import type { CacheNetwork } from './network.js';

/** Reads one context value in the form a setting wants (infra/context.ts makes these). */
export interface ContextReaders {
  text(key: string): string | undefined;
  number(key: string): number | undefined;
  flag(key: string): boolean | undefined;
  list(key: string): string[] | undefined;
}

/** What the construct gives a kind to build its cache with. */
export interface CacheBuild {
  readonly network: CacheNetwork;
  /** The wire identity the functions expect (a self-managed cluster loads its module with it). */
  readonly wire: string;
  /**
   * What becomes of what the kind creates when the stack is deleted or it is replaced.
   * Undefined: kept (a final snapshot where the service takes one, else retained).
   */
  readonly removalPolicy: RemovalPolicy | undefined;
}

export interface CacheKindModule<Input extends { readonly kind: string }, Resolved> {
  /** The family of admission calls (SPEC §4) the functions run; `auto` decides at connect. */
  readonly executor: ExecutorChoice;
  /** Context keys only this kind reads (each one given with another kind is refused). */
  readonly contextKeys: readonly string[];
  /**
   * Why one of its context keys was given with another kind, where the generic "applies only
   * to" would not say enough; undefined: the generic sentence.
   */
  refusedElsewhere?(key: string, value: string | undefined, chosen: string): string | undefined;
  /** Whether the functions may join the user's VPC (`vpcId`): the cache lives there, not in a VPC of the stack's. */
  readonly joinsUserVpc: boolean;
  /** Whether the functions may authenticate with IAM tokens (`-c cacheAuth=iam`), signed for the kind's service. */
  readonly offersIamAuth: boolean;
  /** The kind's settings from context; checked later by `resolve`, with every other problem. */
  fromContext(read: ContextReaders, cacheAuth: string | undefined): Input;
  /** Applies the defaults and reports each problem through `ensure` and `int`. */
  resolve(input: Input, ensure: Ensure, int: EnsureInt): Resolved;
  /** Replicas per shard the deployment knows (SPEC §11 WAIT); undefined where it cannot see them. */
  knownReplicas(cache: Resolved): number | undefined;
  /** A log (ElastiCache durability=sync) already holds every acknowledged write: no WAIT by default. */
  logConfirmsWrites(cache: Resolved): boolean;
  /** Why WAIT cannot run there, where it cannot (ackReplicas must then be 0). */
  readonly noWait?: string;
  /** How the functions log in and what keeps an acknowledged write, for the synth summary. */
  describe(cache: Resolved): { readonly cacheAuth: string; readonly durability: string };
  /** The construct that serves the cache. */
  create(scope: Construct, id: string, cache: Resolved, build: CacheBuild): CacheTarget;
}
