/**
 * Reads the deployment from CDK context (`-c key=value` or cdk.json "context"), collecting
 * every problem, including keys that do not fit the chosen cache or auth.
 */
import { boundsOf, SETTING_NAMES } from '../../src/settings/settings-table.js';
import { cacheKind } from '../cache/modules.js';
import {
  CACHE_KINDS,
  CACHE_REGISTRY,
  type CacheKind,
  DEFAULT_CACHE_KIND,
} from '../cache/registry.js';
import { closestKey, unknownKeys } from './context-keys.js';
import { type EchoMqDeployment, RUNTIMES, type RuntimeName } from './deployment.js';

/** Reads one context value; `node.tryGetContext` fits. */
export type ContextReader = (key: string) => unknown;

/** Context keys that only mean something for one cache kind. */
const CACHE_KEYS = Object.fromEntries(
  CACHE_KINDS.map((kind) => [kind, cacheKind(kind).contextKeys]),
) as Readonly<Record<CacheKind, readonly string[]>>;
const JWT_KEYS = ['jwtIssuer', 'jwtAudience'];
/** The cache kinds that offer IAM authentication (`-c cacheAuth=iam`). */
const IAM_KINDS: readonly string[] = CACHE_KINDS.filter(
  (kind) => CACHE_REGISTRY[kind].offersIamAuth,
);

/** Every context key the app reads, for the README and for typo hints. */
export const CONTEXT_KEYS = [
  'cache',
  'cacheAuth',
  ...Object.values(CACHE_KEYS).flat(),
  'auth',
  ...JWT_KEYS,
  // The EMQ_* tunables: one key per row of the settings table.
  ...SETTING_NAMES,
  'throttleRate',
  'throttleBurst',
  'maxConcurrency',
  'provisionedPollers',
  'batchSize',
  'maxBatchingWindowSeconds',
  'fifo',
  'visibilityTimeoutSeconds',
  'maxReceiveCount',
  'interfaceEndpoints',
  'tracing',
  'runtime',
  'logRetentionDays',
  'keepLogsOnDelete',
  'passwordRotationDays',
  'alarmTopicArn',
  'bundleDir',
  'stackName',
];

/**
 * @param keys every context key present (`node.getAllContext()`); each one the app does not
 * read is a problem naming the closest known key. Default: none checked.
 */
export function deploymentFromContext(
  read: ContextReader,
  keys: readonly string[] = [],
): {
  deployment: EchoMqDeployment;
  stackName: string;
  problems: string[];
} {
  const problems: string[] = unknownKeys(keys, CONTEXT_KEYS);
  const text = (key: string): string | undefined => {
    const value = read(key);
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value === 'string') return value.trim();
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    problems.push(`${key} must be a string, a number or a boolean.`);
    return undefined;
  };
  const number = (key: string): number | undefined => {
    const value = text(key);
    if (value === undefined) return undefined;
    if (!/^\d+$/.test(value)) {
      problems.push(`${key} must be a whole number.`);
      return undefined;
    }
    return Number(value);
  };
  const flag = (key: string): boolean | undefined => {
    const value = text(key);
    if (value === undefined) return undefined;
    if (value === 'true' || value === 'false') return value === 'true';
    problems.push(`${key} must be true or false.`);
    return undefined;
  };
  const list = (key: string): string[] | undefined =>
    text(key)
      ?.split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');

  const kind = text('cache') ?? DEFAULT_CACHE_KIND;
  // An unknown kind is one problem: every key that would depend on the kind is left unjudged
  // (and out of the deployment), so a typo does not also report each of them.
  const known = CACHE_KINDS.some((name) => name === kind);
  if (!known) {
    problems.push(
      `cache must be one of ${CACHE_KINDS.join(', ')}; got '${kind}' (did you mean '${closestKey(kind, CACHE_KINDS)}'?).`,
    );
  }
  for (const [owner, keys] of known ? Object.entries(CACHE_KEYS) : []) {
    if (owner === kind) continue;
    for (const key of keys) {
      const value = text(key);
      if (value === undefined) continue;
      problems.push(
        cacheKind(owner as CacheKind).refusedElsewhere?.(key, value, kind) ??
          `${key} applies only to cache=${owner}.`,
      );
    }
  }
  const cacheAuth = text('cacheAuth');
  if (known && cacheAuth !== undefined && cacheAuth !== 'password' && !IAM_KINDS.includes(kind)) {
    problems.push(
      `cacheAuth=${cacheAuth} applies only to cache=${IAM_KINDS.join(' or cache=')} (IAM authentication); cache=${kind} authenticates with a password.`,
    );
  }
  const auth = text('auth') ?? 'iam';
  if (auth !== 'iam' && auth !== 'jwt') problems.push(`auth must be iam or jwt; got '${auth}'.`);
  if (auth !== 'jwt') {
    for (const key of JWT_KEYS) {
      if (text(key) !== undefined) problems.push(`${key} applies only to auth=jwt.`);
    }
  }

  const cache = known
    ? cacheKind(kind as CacheKind).fromContext({ text, number, flag, list }, cacheAuth)
    : undefined;
  const deployment: EchoMqDeployment = {
    ...(cache === undefined ? {} : { cache }),
    bundleDir: text('bundleDir'),
    settings: Object.fromEntries(
      SETTING_NAMES
        // ackReplicas is judged against the kind's replicas: left out with an unknown kind.
        .filter((name) => known || name !== 'ackReplicas')
        .map((name) => [name, boundsOf(name) === undefined ? text(name) : number(name)]),
    ),
    http: {
      auth:
        auth === 'jwt'
          ? { kind: 'jwt', issuer: text('jwtIssuer') ?? '', audience: list('jwtAudience') ?? [] }
          : { kind: 'iam' },
      throttleRate: number('throttleRate'),
      throttleBurst: number('throttleBurst'),
    },
    sqs: {
      maxConcurrency: number('maxConcurrency'),
      provisionedPollers: pollers(text('provisionedPollers'), problems),
      batchSize: number('batchSize'),
      maxBatchingWindowSeconds: number('maxBatchingWindowSeconds'),
      fifo: flag('fifo'),
      visibilityTimeoutSeconds: number('visibilityTimeoutSeconds'),
      maxReceiveCount: number('maxReceiveCount'),
    },
    network: {
      interfaceEndpoints: flag('interfaceEndpoints'),
      ...(known
        ? {
            vpcId: text('vpcId'),
            subnetIds: list('subnetIds'),
            securityGroupIds: list('securityGroupIds'),
          }
        : {}),
    },
    runtime: runtimeOf(text('runtime'), problems),
    tracing: flag('tracing'),
    logRetentionDays: number('logRetentionDays'),
    keepLogsOnDelete: flag('keepLogsOnDelete'),
    passwordRotationDays: number('passwordRotationDays'),
    alarmTopicArn: text('alarmTopicArn'),
  };
  const stackName = text('stackName') ?? 'EchoMqLambda';
  if (!/^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(stackName)) {
    problems.push('stackName must start with a letter and hold only letters, digits and -.');
  }
  return { deployment, stackName, problems };
}

/** `min,max` of provisionedPollers. */
function pollers(
  value: string | undefined,
  problems: string[],
): { min: number; max: number } | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)\s*,\s*(\d+)$/.exec(value);
  if (match === null) {
    problems.push('provisionedPollers must be min,max (for example 2,20).');
    return undefined;
  }
  return { min: Number(match[1]), max: Number(match[2]) };
}

function runtimeOf(value: string | undefined, problems: string[]): RuntimeName | undefined {
  if (value === undefined) return undefined;
  const known = RUNTIMES.find((runtime) => runtime === value);
  if (known === undefined)
    problems.push(`runtime must be one of ${RUNTIMES.join(', ')}; got '${value}'.`);
  return known;
}
