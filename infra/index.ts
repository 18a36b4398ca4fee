/** `echomq-lambda/cdk`: the EchoMq construct and what its props are made of (SPEC §12). */

export { SETTINGS, type SettingName, type SettingValues } from '../src/settings-table.js';
export type * from './cache/registry.js';
export { CACHE_KINDS } from './cache/registry.js';
export {
  EchoMq,
  type EchoMqFunctionProps,
  type EchoMqOptions,
  type EchoMqProps,
  type EchoMqSqs,
} from './echomq.js';
export { EchoMqCache } from './echomq-cache.js';
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
  type HttpOptions,
  InvalidDeploymentError,
  type SqsOptions,
} from './settings.js';
