/**
 * The cache half of the settings: each kind's settings live in its folder (cache/<kind>/);
 * this resolves whichever kind was chosen. settings.ts assembles it with the rest.
 */
import { type CacheSettings, moduleOf, type ResolvedCache } from './cache/modules.js';
import { CACHE_KINDS } from './cache/registry.js';
import type { Ensure, EnsureInt } from './resolved.js';

export { CACHE_AUTHS, type CacheAuth } from './cache/auth.js';
export {
  DEFAULT_ACCESS_STRING,
  type ElastiCacheSettings,
  INSTALLER_ACCESS_STRING,
} from './cache/elasticache/settings.js';
export { normaliseUrl } from './cache/endpoint-url.js';
export type { ExistingCacheSettings, ExistingIamAuth } from './cache/existing/kind.js';
export type { CacheSettings, ResolvedCache } from './cache/modules.js';
export { CACHE_KINDS, type CacheKind } from './cache/registry.js';
export {
  SELFMANAGED_ACCESS_STRING,
  type SelfManagedCacheSettings,
} from './cache/selfmanaged/kind.js';
export {
  SERVERLESS_ACCESS_STRING,
  SERVERLESS_INSTALLER_ACCESS_STRING,
  type ServerlessCacheSettings,
} from './cache/serverless/settings.js';
export type { Resolved } from './resolved.js';

/** Applies the defaults of the chosen kind and reports what is wrong through `ensure` and `int`. */
export function resolveCache(input: CacheSettings, ensure: Ensure, int: EnsureInt): ResolvedCache {
  if (!CACHE_KINDS.includes(input.kind)) {
    ensure(false, `cache must be one of ${CACHE_KINDS.join(', ')}.`);
    return input as ResolvedCache;
  }
  // The module of the input's own kind: its resolve takes exactly that kind's settings.
  return moduleOf(input as ResolvedCache).resolve(input, ensure, int);
}
