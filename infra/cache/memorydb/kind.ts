/**
 * MemoryDB for Valkey: the function family (FCALL), IAM tokens signed for `memorydb`, and a
 * Multi-AZ transaction log that holds every acknowledged write, so no WAIT by default
 * (EMQ_ACK_REPLICAS=0 is right there: a replica never holds a write the log does not).
 */
import type { CacheAuth } from '../auth.js';
import type { CacheKindModule } from '../kind.js';
import { MemoryDbValkey } from './construct.js';
import { type MemoryDbCacheSettings, type ResolvedMemoryDb, resolveMemoryDb } from './settings.js';

export type { MemoryDbCacheSettings, ResolvedMemoryDb };

export const MEMORYDB: CacheKindModule<MemoryDbCacheSettings, ResolvedMemoryDb> = {
  // MemoryDB for Valkey loads no module and runs FUNCTION and FCALL.
  executor: 'function',
  contextKeys: ['memoryDbNodeType', 'memoryDbShards', 'memoryDbReplicas', 'memoryDbEngineVersion'],
  joinsUserVpc: false,
  offersIamAuth: true,
  fromContext: (read, cacheAuth) => ({
    kind: 'memorydb',
    ...(cacheAuth === undefined ? {} : { cacheAuth: cacheAuth as CacheAuth }),
    nodeType: read.text('memoryDbNodeType'),
    shards: read.number('memoryDbShards'),
    replicasPerShard: read.number('memoryDbReplicas'),
    engineVersion: read.text('memoryDbEngineVersion'),
  }),
  resolve: resolveMemoryDb,
  knownReplicas: (cache) => cache.replicasPerShard,
  // The transaction log acknowledges a write only once it is durable in several AZs.
  logConfirmsWrites: () => true,
  describe: (cache) => ({ cacheAuth: cache.cacheAuth, durability: 'transaction-log' }),
  create: (scope, id, cache, { network, removalPolicy }) =>
    new MemoryDbValkey(scope, id, {
      settings: cache,
      network,
      executor: MEMORYDB.executor,
      removalPolicy,
    }),
};
