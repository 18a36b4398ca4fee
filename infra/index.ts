/** `echomq-lambda/cdk`: the EchoMq construct and what its props are made of (SPEC §12). */

export { SETTINGS, type SettingName, type SettingValues } from '../src/settings/settings-table.js';
export type { ExistingIamAuth } from './cache/existing/kind.js';
export { CACHE_KINDS, type CacheKind } from './cache/registry.js';
export {
  EchoMq,
  type EchoMqFunctionProps,
  type EchoMqOptions,
  type EchoMqProps,
  type EchoMqSqs,
} from './echomq.js';
export {
  EchoMqCache,
  type ElastiCacheOptions,
  type ExistingOptions,
  type MemoryDbOptions,
  type SelfManagedOptions,
  type ServerlessOptions,
} from './echomq-cache.js';
export type {
  EchoMqHttp,
  EchoMqNewHttpApi,
  EchoMqOnFunctionUrl,
  EchoMqOnHttpApi,
  EchoMqOnRestApi,
} from './http-face.js';
export type { EchoMqRedelivery } from './queue-redelivery.js';
export {
  type ApiAuth,
  type HttpSettings,
  InvalidSettingsError,
  type SqsSettings,
} from './settings.js';
