/** ElastiCache Serverless for Valkey: the script family (EVALSHA), no WAIT, no durability. */

import type { Resolved } from '../../shared/resolved.js';
import type { CacheAuth } from '../auth.js';
import type { CacheTarget } from '../cache.js';
import { type CacheKindModule, type CreatedOptions, placed } from '../kind.js';
import { ServerlessValkey } from './construct.js';
import { resolveServerless, type ServerlessSpec } from './spec.js';

export type ServerlessOptions = CreatedOptions<ServerlessSpec>;

export const SERVERLESS = {
  factory: {
    /** ElastiCache Serverless for Valkey. */
    serverless: (options: ServerlessOptions = {}) => placed('serverless', options),
  },
  facts: {
    builds: 'ElastiCache Serverless for Valkey (TLS always on), RBAC users',
    family: '`script`: `EVALSHA` of the same library (Serverless has no `FCALL` or `FUNCTION`)',
    acknowledgement: '`0`, the only value accepted: Serverless has no `WAIT`',
    memoryPolicy:
      '`volatile-lru`, forced by the service; it evicts nothing the functions write (no key of theirs has a TTL)',
    durability: 'none: AWS offers no durability on Serverless',
    fence: 'no: checked at connect',
    limits: '`dataStorageMaxGb` (1-5,000), `ecpuPerSecondMax`',
  },
  // Serverless has no FCALL or FUNCTION: the same library runs through EVALSHA.
  family: 'script',
  contextKeys: ['serverlessEngineVersion', 'dataStorageMaxGb', 'ecpuPerSecondMax'],
  joinsUserVpc: false,
  offersIamAuth: true,
  fromContext: (read, cacheAuth) => ({
    kind: 'serverless',
    ...(cacheAuth === undefined ? {} : { cacheAuth: cacheAuth as CacheAuth }),
    majorEngineVersion: read.text('serverlessEngineVersion'),
    dataStorageMaxGb: read.number('dataStorageMaxGb'),
    ecpuPerSecondMax: read.number('ecpuPerSecondMax'),
  }),
  resolve: resolveServerless,
  knownReplicas: () => undefined,
  logConfirmsWrites: () => false,
  noWait:
    'ElastiCache Serverless has no WAIT (it replicates inside the service), so no write could be confirmed by a replica',
  describe: (cache) => ({ cacheAuth: cache.cacheAuth, durability: 'none' }),
  create: (scope, id, cache, { network, removalPolicy }): CacheTarget =>
    new ServerlessValkey(scope, id, {
      spec: cache,
      network,
      family: SERVERLESS.family,
      removalPolicy,
    }),
} satisfies CacheKindModule<ServerlessSpec, Resolved<ServerlessSpec>>;
