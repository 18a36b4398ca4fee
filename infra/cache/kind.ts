/**
 * What one cache kind brings, in one module (infra/cache/<kind>/kind.ts): its spec and
 * its checks, the context keys that choose it, the family of admission calls its servers
 * run, what it says about acknowledged writes, and the construct that serves it. The registry
 * (registry.ts) holds one row per kind, and the compiler checks each row against this shape.
 */
import type { RemovalPolicy } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type { Construct } from 'constructs';
import type { FamilyChoice } from '../../src/settings/config.js';
import type { Ensure, EnsureInt } from '../shared/resolved.js';
import type { CacheTarget } from './cache.js';
import type { CacheNetwork } from './network.js';

/** Reads one context value in the form a context key wants (infra/deployment/context.ts makes these). */
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

/** Where a cache the construct creates places its nodes. */
export interface Placement {
  /**
   * The subnets of the cache's nodes.
   * @default the functions' subnets
   */
  readonly vpcSubnets?: ec2.SubnetSelection;
}

/** What a factory makes of the options users give: the kind's spec, and where its nodes go. */
export interface PlacedCache<Input> {
  readonly spec: Input;
  readonly vpcSubnets?: ec2.SubnetSelection;
}

/** The options of a kind the construct creates: its spec without the kind, and a placement. */
export type CreatedOptions<Input> = Omit<Input, 'kind'> & Placement;

/** A created kind's spec from its options: the kind, and the placement apart. */
export function placed<const K extends string, O extends Placement>(
  kind: K,
  { vpcSubnets, ...rest }: O,
): PlacedCache<{ readonly kind: K } & Omit<O, 'vpcSubnets'>> {
  return { spec: { kind, ...rest }, vpcSubnets };
}

/**
 * The kind's column of the kinds table in docs/deploy.md (scripts/cache-kinds-docs.ts), one
 * cell per row: markdown, written for users.
 */
export interface CacheKindFacts {
  /** What the stack builds. */
  readonly builds: string;
  /** The family of admission calls (`EMQ_EXECUTOR`). */
  readonly family: string;
  /** What acknowledges a write (`EMQ_ACK_REPLICAS`). */
  readonly acknowledgement: string;
  readonly memoryPolicy: string;
  readonly durability: string;
  /** Whether the fence is checked on every write, with the paused guard. */
  readonly fence: string;
  readonly limits: string;
}

export interface CacheKindModule<Input extends { readonly kind: string }, Resolved> {
  /**
   * How users choose the kind in code: one method, named as `EchoMqCache` offers it (for
   * example `memoryDb`), whose TSDoc is the factory's, making the kind's spec from its
   * options. `EchoMqCache` is made of these (echomq-cache.ts).
   */
  readonly factory: { readonly [name: string]: (options: never) => PlacedCache<Input> };
  /** The kind's column of the kinds table in docs/deploy.md. */
  readonly facts: CacheKindFacts;
  /**
   * The family of admission calls (docs/wire.md, "The calls") the functions run; `auto` decides at
   * connect.
   */
  readonly family: FamilyChoice;
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
  /** The kind's spec from context; checked later by `resolve`, with every other problem. */
  fromContext(read: ContextReaders, cacheAuth: string | undefined): Input;
  /** Applies the defaults and reports each problem through `ensure` and `int`. */
  resolve(input: Input, ensure: Ensure, int: EnsureInt): Resolved;
  /**
   * Replicas per shard the deployment knows (the WAIT of docs/reliability.md, "Acknowledgements");
   * undefined where it cannot see them.
   */
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
