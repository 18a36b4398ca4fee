/** ElastiCache for Valkey, node-based: the function family (FCALL), durability on 9.x. */

import type { Resolved } from '../../shared/resolved.js';
import type { CacheAuth } from '../auth.js';
import type { CacheTarget } from '../cache.js';
import { type CacheKindModule, type CreatedOptions, placed } from '../kind.js';
import { ElastiCacheValkey } from './construct.js';
import type { Durability } from './durability.js';
import { type ElastiCacheSpec, resolveElastiCache } from './spec.js';

export type ElastiCacheOptions = CreatedOptions<ElastiCacheSpec>;

export const ELASTICACHE = {
  factory: {
    /** Node-based ElastiCache for Valkey in cluster mode (default: 2 shards, 1 replica each, durability sync). */
    elastiCache: (options: ElastiCacheOptions = {}) => placed('elasticache', options),
  },
  facts: {
    builds:
      'ElastiCache for Valkey 9.1, node-based: cluster mode, Multi-AZ with automatic failover, TLS required, encrypted at rest, RBAC users',
    family: '`function`: `FCALL` of the `emq` library',
    acknowledgement:
      '`0` with `durability=sync` (the log is the acknowledgement); `1` (`WAIT 1`) with `async` or `off`',
    memoryPolicy: "`noeviction` (the stack's parameter group)",
    durability:
      '`-c durability=sync` (default), `async` or `off` ([below](#durability-cacheelasticache))',
    fence: "no: checked at connect (and where the node serves the fence's slot)",
    limits: 'shards × node memory; resharding online',
  },
  // Node-based ElastiCache loads no module; it has FUNCTION and FCALL.
  family: 'function',
  contextKeys: ['nodeType', 'shards', 'replicasPerShard', 'engineVersion', 'durability'],
  refusedElsewhere: (key, value, chosen) => {
    if (key !== 'durability' || value === 'off') return undefined;
    return chosen === 'serverless'
      ? `durability=${value} is not offered on cache=serverless: AWS supports durability on node-based ElastiCache for Valkey 9.0 or later only, not on ElastiCache Serverless; use cache=elasticache.`
      : `durability applies only to cache=elasticache (ElastiCache for Valkey 9.x node-based); cache=${chosen} is not a cache the stack can give a durability log.`;
  },
  joinsUserVpc: false,
  offersIamAuth: true,
  fromContext: (read, cacheAuth) => ({
    kind: 'elasticache',
    // Checked with the other values in resolve, so a typo is listed with every problem.
    ...(cacheAuth === undefined ? {} : { cacheAuth: cacheAuth as CacheAuth }),
    nodeType: read.text('nodeType'),
    shards: read.number('shards'),
    replicasPerShard: read.number('replicasPerShard'),
    engineVersion: read.text('engineVersion'),
    // Checked in durability.ts with the engine and node type it must fit.
    durability: read.text('durability') as Durability | undefined,
  }),
  resolve: resolveElastiCache,
  knownReplicas: (cache) => cache.replicasPerShard,
  logConfirmsWrites: (cache) => cache.durability === 'sync',
  describe: (cache) => ({ cacheAuth: cache.cacheAuth, durability: cache.durability }),
  create: (scope, id, cache, { network, removalPolicy }): CacheTarget =>
    new ElastiCacheValkey(scope, id, {
      spec: cache,
      network,
      family: ELASTICACHE.family,
      removalPolicy,
    }),
} satisfies CacheKindModule<ElastiCacheSpec, Resolved<ElastiCacheSpec>>;
