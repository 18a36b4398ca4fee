/**
 * The cache kinds, one row each. A new kind is a folder (<kind>/kind.ts and its parts) and a row
 * here, with its options type re-exported beside it: `echomq-lambda/cdk` exports every type of
 * this file, `EchoMqCache` offers the row's factory, and docs/deploy.md's kinds table shows its
 * facts. The compiler checks that the row's spec carries its kind and that the module has
 * every part.
 */

import { ELASTICACHE } from './elasticache/kind.js';
import { EXISTING } from './existing/kind.js';
import type { CacheKindModule } from './kind.js';
import { MEMORYDB } from './memorydb/kind.js';
import { SELFMANAGED } from './selfmanaged/kind.js';
import { SERVERLESS } from './serverless/kind.js';

export type { ElastiCacheOptions } from './elasticache/kind.js';
export type { ExistingIamAuth, ExistingOptions } from './existing/kind.js';
export type { MemoryDbOptions } from './memorydb/kind.js';
export type { SelfManagedOptions } from './selfmanaged/kind.js';
export type { ServerlessOptions } from './serverless/kind.js';

export const CACHE_REGISTRY = {
  elasticache: ELASTICACHE,
  serverless: SERVERLESS,
  existing: EXISTING,
  selfmanaged: SELFMANAGED,
  memorydb: MEMORYDB,
} as const satisfies {
  readonly [K in string]: CacheKindModule<{ readonly kind: K }, { readonly kind: K }>;
};

/** Where the functions find Valkey. */
export type CacheKind = keyof typeof CACHE_REGISTRY;

/** The kind a deployment gets where it names none. */
export const DEFAULT_CACHE_KIND = 'elasticache' satisfies CacheKind;

export const CACHE_KINDS = Object.keys(CACHE_REGISTRY) as CacheKind[];
