/**
 * The deployment's checks name a field by its context key, as the repository's own app reads it
 * (`-c memoryDbShards=3`); the construct is given props, so its problems name the prop's path
 * instead (`EchoMqCache.memoryDb({ shards })`, `http.auth.issuer`). One table, from the key to
 * the path; a setting (`dedupeTtlMs (EMQ_DEDUPE_TTL_MS)`) is a field of `settings`. A secret's
 * ARN keeps its key: only a plain spec (`EchoMqCache.fromSpec`, the app's context) holds one.
 */
import { SETTING_NAMES } from '../../src/settings/settings-table.js';

const PROP_PATHS: Readonly<Record<string, string>> = {
  jwtIssuer: 'http.auth.issuer',
  jwtAudience: 'http.auth.audience',
  throttleRate: 'http.throttleRate',
  throttleBurst: 'http.throttleBurst',
  'http timeoutSeconds': 'http.timeoutSeconds',
  'http memoryMiB': 'http.memoryMiB',
  'sqs timeoutSeconds': 'sqs.timeoutSeconds',
  'sqs memoryMiB': 'sqs.memoryMiB',
  'provisionedPollers min': 'sqs.provisionedPollers.min',
  'provisionedPollers max': 'sqs.provisionedPollers.max',
  provisionedPollers: 'sqs.provisionedPollers',
  maxConcurrency: 'sqs.maxConcurrency',
  batchSize: 'sqs.batchSize',
  maxBatchingWindowSeconds: 'sqs.maxBatchingWindowSeconds',
  visibilityTimeoutSeconds: 'sqs.visibilityTimeoutSeconds',
  maxReceiveCount: 'sqs.maxReceiveCount',
  logRetentionDays: 'options.logRetentionDays',
  alarmTopicArn: 'options.alarmTopicArn',
  memoryDbNodeType: 'EchoMqCache.memoryDb({ nodeType })',
  memoryDbShards: 'EchoMqCache.memoryDb({ shards })',
  memoryDbReplicas: 'EchoMqCache.memoryDb({ replicasPerShard })',
  memoryDbEngineVersion: 'EchoMqCache.memoryDb({ engineVersion })',
  selfManagedShards: 'EchoMqCache.selfManaged({ shards })',
  selfManagedReplicas: 'EchoMqCache.selfManaged({ replicasPerShard })',
  serverlessEngineVersion: 'EchoMqCache.serverless({ majorEngineVersion })',
  dataStorageMaxGb: 'EchoMqCache.serverless({ dataStorageMaxGb })',
  ecpuPerSecondMax: 'EchoMqCache.serverless({ ecpuPerSecondMax })',
  valkeyEndpoint: 'EchoMqCache.existing({ endpoint })',
};

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Longest first, so that `provisionedPollers min` is read before `provisionedPollers`. */
const KEY_PATTERN = new RegExp(
  `(?<![\\w.]|its )(${Object.keys(PROP_PATHS)
    .sort((a, b) => b.length - a.length)
    .map(literal)
    .join('|')})(?![\\w])`,
  'g',
);
const SETTING_PATTERN = new RegExp(`(?<![\\w.])(${SETTING_NAMES.join('|')})(?= \\(EMQ_)`, 'g');

/** `problem` with every context key it names replaced by the prop's path. */
export function propNamed(problem: string): string {
  return problem
    .replace(KEY_PATTERN, (key) => PROP_PATHS[key] ?? key)
    .replace(SETTING_PATTERN, (name) => `settings.${name}`);
}
