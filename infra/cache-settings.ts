/**
 * The cache half of the settings: each kind's settings live in its module (cache/kinds/);
 * this resolves whichever kind was chosen. settings.ts assembles it with the rest.
 */
import { CACHE_KINDS, type CacheSettings, moduleOf, type ResolvedCache } from './cache/registry.js';
import type { Check, IntCheck } from './resolved.js';

export { normaliseUrl } from './cache/endpoint-url.js';
export type { ExistingCacheSettings, ExistingIamAuth } from './cache/kinds/existing.js';
export {
  SELFMANAGED_ACCESS_STRING,
  type SelfManagedCacheSettings,
} from './cache/kinds/selfmanaged.js';
export {
  CACHE_KINDS,
  type CacheKind,
  type CacheSettings,
  type ResolvedCache,
} from './cache/registry.js';
export {
  CACHE_AUTHS,
  type CacheAuth,
  DEFAULT_ACCESS_STRING,
  type ElastiCacheSettings,
  INSTALLER_ACCESS_STRING,
  SERVERLESS_ACCESS_STRING,
  SERVERLESS_INSTALLER_ACCESS_STRING,
  type ServerlessCacheSettings,
} from './elasticache-settings.js';
export type { Resolved } from './resolved.js';

/** Applies the defaults of the chosen kind and reports what is wrong through `check` and `int`. */
export function resolveCache(input: CacheSettings, check: Check, int: IntCheck): ResolvedCache {
  if (!CACHE_KINDS.includes(input.kind)) {
    check(false, `cache must be one of ${CACHE_KINDS.join(', ')}.`);
    return input as ResolvedCache;
  }
  // The module of the input's own kind: its resolve takes exactly that kind's settings.
  return moduleOf(input as ResolvedCache).resolve(input, check, int);
}
