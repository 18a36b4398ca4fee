/** Builds the cache construct the settings name. */
import type { Construct } from 'constructs';
import type { EchoMqNetwork } from '../network.js';
import type { ResolvedCache } from '../settings.js';
import type { EchoMqCache } from './cache.js';
import { ElastiCacheValkey } from './elasticache.js';
import { ExistingValkey } from './existing.js';
import { SelfManagedValkey } from './selfmanaged.js';
import { ServerlessValkey } from './serverless.js';

export function createCache(
  scope: Construct,
  id: string,
  cache: ResolvedCache,
  network: EchoMqNetwork,
): EchoMqCache {
  switch (cache.kind) {
    case 'elasticache':
      return new ElastiCacheValkey(scope, id, { settings: cache, network });
    case 'serverless':
      return new ServerlessValkey(scope, id, { settings: cache, network });
    case 'existing':
      return new ExistingValkey(scope, id, { settings: cache });
    case 'selfmanaged':
      return new SelfManagedValkey(scope, id, { settings: cache, network });
  }
}
