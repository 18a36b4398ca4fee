/** ElastiCache for Valkey, node-based: the function family (FCALL), durability on 9.x. */
import type { Durability } from '../../durability-settings.js';
import {
  type CacheAuth,
  type ElastiCacheSettings,
  resolveElastiCache,
} from '../../elasticache-settings.js';
import type { Resolved } from '../../resolved.js';
import { ElastiCacheValkey } from '../elasticache.js';
import type { CacheKindModule } from '../kind.js';

export const ELASTICACHE: CacheKindModule<ElastiCacheSettings, Resolved<ElastiCacheSettings>> = {
  // Node-based ElastiCache loads no module; it has FUNCTION and FCALL.
  executor: 'function',
  contextKeys: ['nodeType', 'shards', 'replicasPerShard', 'engineVersion', 'durability'],
  offersIamAuth: true,
  fromContext: (read, cacheAuth) => ({
    kind: 'elasticache',
    // Checked with the other values in resolve, so a typo is listed with every problem.
    ...(cacheAuth === undefined ? {} : { cacheAuth: cacheAuth as CacheAuth }),
    nodeType: read.text('nodeType'),
    shards: read.number('shards'),
    replicasPerShard: read.number('replicasPerShard'),
    engineVersion: read.text('engineVersion'),
    // Checked in durability-settings.ts with the engine and node type it must fit.
    durability: read.text('durability') as Durability | undefined,
  }),
  resolve: resolveElastiCache,
  knownReplicas: (cache) => cache.replicasPerShard,
  logConfirmsWrites: (cache) => cache.durability === 'sync',
  describe: (cache) => ({ cacheAuth: cache.cacheAuth, durability: cache.durability }),
  create: (scope, id, cache, { network, removalPolicy }) =>
    new ElastiCacheValkey(scope, id, {
      settings: cache,
      network,
      executor: ELASTICACHE.executor,
      removalPolicy,
    }),
};
