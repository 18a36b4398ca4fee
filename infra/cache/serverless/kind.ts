/** ElastiCache Serverless for Valkey: the script family (EVALSHA), no WAIT, no durability. */

import type { Resolved } from '../../resolved.js';
import type { CacheAuth } from '../auth.js';
import type { CacheKindModule } from '../kind.js';
import { ServerlessValkey } from './construct.js';
import { resolveServerless, type ServerlessCacheSettings } from './settings.js';

export const SERVERLESS: CacheKindModule<
  ServerlessCacheSettings,
  Resolved<ServerlessCacheSettings>
> = {
  // Serverless has no FCALL or FUNCTION: the same library runs through EVALSHA.
  executor: 'script',
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
  create: (scope, id, cache, { network, removalPolicy }) =>
    new ServerlessValkey(scope, id, {
      settings: cache,
      network,
      executor: SERVERLESS.executor,
      removalPolicy,
    }),
};
