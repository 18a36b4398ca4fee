/** The registry's rows, typed by kind: what the construct and the checks call a kind's module through. */

import type { CacheKindModule } from './kind.js';
import { CACHE_REGISTRY, type CacheKind } from './registry.js';

type Registry = typeof CACHE_REGISTRY;

/** The spec of one kind, as given. */
type CacheSpecOf<K extends CacheKind> = Parameters<Registry[K]['resolve']>[0];
/** The spec of one kind, defaults applied. */
type ResolvedCacheOf<K extends CacheKind> = ReturnType<Registry[K]['resolve']>;

export type CacheSpec = { [K in CacheKind]: CacheSpecOf<K> }[CacheKind];
export type ResolvedCache = { [K in CacheKind]: ResolvedCacheOf<K> }[CacheKind];

/** The module of a kind, typed for its own spec. */
export function cacheKind<K extends CacheKind>(
  kind: K,
): CacheKindModule<CacheSpecOf<K>, ResolvedCacheOf<K>> {
  return CACHE_REGISTRY[kind] as unknown as CacheKindModule<CacheSpecOf<K>, ResolvedCacheOf<K>>;
}

/** The module of a resolved cache, called with that cache. */
export function moduleOf(cache: ResolvedCache): CacheKindModule<CacheSpec, ResolvedCache> {
  return CACHE_REGISTRY[cache.kind] as unknown as CacheKindModule<CacheSpec, ResolvedCache>;
}
