/** Builds the cache construct the settings name. */
import type { Construct } from 'constructs';
import type { EchoMqNetwork } from '../network.js';
import type { ResolvedCache } from '../settings.js';
import type { EchoMqCache } from './cache.js';
import { ElastiCacheValkey } from './elasticache.js';
import { ExistingValkey } from './existing.js';

export function createCache(
  scope: Construct,
  id: string,
  cache: ResolvedCache,
  network: EchoMqNetwork,
): EchoMqCache {
  switch (cache.kind) {
    case 'elasticache':
      return new ElastiCacheValkey(scope, id, { settings: cache, network });
    case 'existing':
      return new ExistingValkey(scope, id, { settings: cache });
    case 'selfmanaged':
      // resolveSettings refuses it until the self-managed cluster construct exists (issue 9).
      throw new Error('cache=selfmanaged is not available yet.');
  }
}
