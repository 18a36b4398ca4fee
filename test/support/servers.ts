// The harness's entry point: test files import from here.
export { startCluster } from './cluster.js';
export { digestOf } from './digest.js';
export { MODULE_PATH } from './module.js';
export { randomQueue } from './names.js';
export { freePort, freePorts, LOOPBACK } from './ports.js';
export { stopAll } from './registry.js';
export { startReplicated } from './replicated.js';
export { startStandalone } from './standalone.js';
export type {
  Auth,
  ClusterHandle,
  ClusterStartOptions,
  ModuleOption,
  ReplicatedHandle,
  ReplicatedOptions,
  Role,
  ServerHandle,
  ServerOptions,
} from './types.js';
