/**
 * The cache an EchoMq construct uses (docs/deploy.md, "The cache kinds"): one it creates
 * (node-based ElastiCache, ElastiCache Serverless, MemoryDB, a self-managed cluster that loads the
 * EchoMQ module) or one that exists (any Valkey 7.2 or later, MemoryDB included). `EchoMqCache`
 * offers every kind's factory, as the kind's module (cache/<kind>/kind.ts) declares it, with its
 * TSDoc.
 */
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type { PlacedCache } from './kind.js';
import type { CacheSpec } from './modules.js';
import { CACHE_KINDS, CACHE_REGISTRY, type CacheKind } from './registry.js';

/** The cache an EchoMq construct uses: made by a factory of `EchoMqCache`. */
export type EchoMqCache = PlacedCache<CacheSpec>;

/** One object type of every kind's `factory` (each keeps its kind's TSDoc). */
type Factories = UnionToIntersection<(typeof CACHE_REGISTRY)[CacheKind]['factory']>;
type UnionToIntersection<U> = (U extends unknown ? (union: U) => void : never) extends (
  intersection: infer I,
) => void
  ? I
  : never;

/** The factories of `EchoMqCache`: each kind's, returning the cache it describes. */
type EchoMqCacheFactories = {
  readonly [Name in keyof Factories]: Factories[Name] extends (...options: infer A) => unknown
    ? (...options: A) => EchoMqCache
    : never;
} & {
  /** The cache a plain spec describes (the app's context). */
  fromSpec(spec: CacheSpec, vpcSubnets?: ec2.SubnetSelection): EchoMqCache;
};

function factories(): EchoMqCacheFactories {
  const made = Object.fromEntries(
    CACHE_KINDS.flatMap((kind) => Object.entries(CACHE_REGISTRY[kind].factory)),
  );
  // The one place the rows' factories are seen as one object: each row's own type checks its
  // factory, and their union is what `Factories` says `made` holds.
  return {
    ...(made as unknown as Omit<EchoMqCacheFactories, 'fromSpec'>),
    fromSpec: (spec, vpcSubnets) => ({ spec, vpcSubnets }),
  };
}

export const EchoMqCache: EchoMqCacheFactories = factories();
