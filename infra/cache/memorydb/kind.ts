/**
 * MemoryDB for Valkey: the function family (FCALL), IAM tokens signed for `memorydb`, and a
 * Multi-AZ transaction log that holds every acknowledged write, so no WAIT by default
 * (EMQ_ACK_REPLICAS=0 is right there: a replica never holds a write the log does not).
 */
import type { CacheAuth } from '../auth.js';
import type { CacheTarget } from '../cache.js';
import { type CacheKindModule, type CreatedOptions, placed } from '../kind.js';
import { MemoryDbValkey } from './construct.js';
import { type MemoryDbSpec, type ResolvedMemoryDb, resolveMemoryDb } from './spec.js';

export type { MemoryDbSpec, ResolvedMemoryDb };

export type MemoryDbOptions = CreatedOptions<MemoryDbSpec>;

export const MEMORYDB = {
  factory: {
    /** MemoryDB for Valkey (default: 1 shard, 1 replica; every write in its Multi-AZ transaction log). */
    memoryDb: (options: MemoryDbOptions = {}) => placed('memorydb', options),
  },
  facts: {
    builds:
      'MemoryDB for Valkey 7.3: cluster mode, 1 shard with 1 replica, TLS required, encrypted at rest, MemoryDB users in one ACL',
    family: '`function`: MemoryDB runs `FUNCTION` and `FCALL`',
    acknowledgement: '`0`: the transaction log is the acknowledgement',
    memoryPolicy: "`noeviction` (the stack's parameter group)",
    durability: 'always: a Multi-AZ transaction log holds every write before it is acknowledged',
    fence: 'no: checked at connect',
    limits: 'shards × node memory',
  },
  // MemoryDB for Valkey loads no module and runs FUNCTION and FCALL.
  family: 'function',
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
  create: (scope, id, cache, { network, removalPolicy }): CacheTarget =>
    new MemoryDbValkey(scope, id, {
      spec: cache,
      network,
      family: MEMORYDB.family,
      removalPolicy,
    }),
} satisfies CacheKindModule<MemoryDbSpec, ResolvedMemoryDb>;
