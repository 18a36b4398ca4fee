/**
 * `echomq-lambda/cdk`: the EchoMq construct and what its props are made of (docs/props.md,
 * generated from them).
 */

export { SETTINGS, type SettingName, type SettingValues } from '../src/settings/settings-table.js';
export { EchoMqCache } from './cache/echomq-cache.js';
export type * from './cache/registry.js';
export { CACHE_KINDS } from './cache/registry.js';
export {
  EchoMq,
  type EchoMqFunctionProps,
  type EchoMqOptions,
  type EchoMqProps,
  type EchoMqSqs,
} from './constructs/echomq.js';
export type {
  EchoMqHttp,
  EchoMqNewHttpApi,
  EchoMqOnFunctionUrl,
  EchoMqOnHttpApi,
  EchoMqOnRestApi,
} from './constructs/http-face.js';
export type { EchoMqRedelivery } from './constructs/queue-redelivery.js';
export type { EchoMqRollout } from './constructs/rollout.js';
export {
  type ApiAuth,
  type HttpOptions,
  InvalidDeploymentError,
  type SqsOptions,
} from './deployment/deployment.js';
