/**
 * The cache of a deployment: each kind's spec lives in its folder (cache/<kind>/); this
 * resolves whichever kind was chosen. deployment.ts assembles it with the rest.
 */
import { type CacheSpec, moduleOf, type ResolvedCache } from '../cache/modules.js';
import { CACHE_KINDS } from '../cache/registry.js';
import type { Ensure, EnsureInt } from '../shared/resolved.js';

/** Applies the defaults of the chosen kind and reports what is wrong through `ensure` and `int`. */
export function resolveCache(input: CacheSpec, ensure: Ensure, int: EnsureInt): ResolvedCache {
  if (!CACHE_KINDS.includes(input.kind)) {
    ensure(false, `cache must be one of ${CACHE_KINDS.join(', ')}.`);
    return input as ResolvedCache;
  }
  // The module of the input's own kind: its resolve takes exactly that kind's spec.
  return moduleOf(input as ResolvedCache).resolve(input, ensure, int);
}
