/**
 * The family of admission calls the functions run on each cache kind (SPEC §4): a target's
 * family is the first of native, function, script that it runs, so each kind gets the one
 * its servers can run, named at synthesis where the stack knows the servers.
 */
import type { ExecutorChoice } from '../../src/config.js';
import type { CacheKind } from '../cache-settings.js';

export const EXECUTOR_OF: Readonly<Record<CacheKind, ExecutorChoice>> = {
  // Node-based ElastiCache loads no module; it has FUNCTION and FCALL.
  elasticache: 'function',
  // Serverless has no FCALL or FUNCTION: the same library runs through EVALSHA.
  serverless: 'script',
  // Every node loads the module (its per-write fence and paused guard).
  selfmanaged: 'native',
  // The stack cannot see the server: native where every primary loads the module, else the
  // function family (MemoryDB, plain Valkey 7.2+), decided by the connector at connect.
  existing: 'auto',
};
