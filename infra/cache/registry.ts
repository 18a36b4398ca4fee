/**
 * The cache kinds, one row each. A new kind is a folder (<kind>/kind.ts and its parts) and a row here; the
 * compiler checks that the row's settings carry its kind and that the module has every part.
 */

import { ELASTICACHE } from './elasticache/kind.js';
import { EXISTING } from './existing/kind.js';
import type { CacheKindModule } from './kind.js';
import { MEMORYDB } from './memorydb/kind.js';
import { SELFMANAGED } from './selfmanaged/kind.js';
import { SERVERLESS } from './serverless/kind.js';

export const CACHE_REGISTRY = {
  elasticache: ELASTICACHE,
  serverless: SERVERLESS,
  existing: EXISTING,
  selfmanaged: SELFMANAGED,
  memorydb: MEMORYDB,
} as const satisfies {
  readonly [K in string]: CacheKindModule<{ readonly kind: K }, { readonly kind: K }>;
};

type Registry = typeof CACHE_REGISTRY;

/** Where the functions find Valkey. */
export type CacheKind = keyof Registry;

/** The settings of one kind, as given. */
export type CacheSettingsOf<K extends CacheKind> = Parameters<Registry[K]['resolve']>[0];
/** The settings of one kind, defaults applied. */
export type ResolvedCacheOf<K extends CacheKind> = ReturnType<Registry[K]['resolve']>;

export type CacheSettings = { [K in CacheKind]: CacheSettingsOf<K> }[CacheKind];
export type ResolvedCache = { [K in CacheKind]: ResolvedCacheOf<K> }[CacheKind];

export const CACHE_KINDS = Object.keys(CACHE_REGISTRY) as CacheKind[];

/** The module of a kind, typed for its own settings. */
export function cacheKind<K extends CacheKind>(
  kind: K,
): CacheKindModule<CacheSettingsOf<K>, ResolvedCacheOf<K>> {
  return CACHE_REGISTRY[kind] as unknown as CacheKindModule<CacheSettingsOf<K>, ResolvedCacheOf<K>>;
}

/** The module of a resolved cache, called with that cache. */
export function moduleOf(cache: ResolvedCache): CacheKindModule<CacheSettings, ResolvedCache> {
  return CACHE_REGISTRY[cache.kind] as unknown as CacheKindModule<CacheSettings, ResolvedCache>;
}
