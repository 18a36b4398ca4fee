/**
 * Reads the deployment's choices from CDK context (`-c key=value` or cdk.json "context") into
 * settings, collecting every problem, including keys that do not fit the chosen cache or auth.
 */
import { closestKey, unknownKeys } from './context-keys.js';
import {
  CACHE_KINDS,
  type CacheAuth,
  type CacheKind,
  type CacheSettings,
  type Durability,
  type EchoMqSettings,
  RUNTIMES,
  type RuntimeName,
} from './settings.js';

/** Reads one context value; `node.tryGetContext` fits. */
export type ContextReader = (key: string) => unknown;

/** Context keys that only mean something for one cache kind. */
const CACHE_KEYS: Readonly<Record<CacheKind, readonly string[]>> = {
  elasticache: ['nodeType', 'shards', 'replicasPerShard', 'engineVersion', 'durability'],
  serverless: ['serverlessEngineVersion', 'dataStorageMaxGb', 'ecpuPerSecondMax'],
  existing: [
    'valkeyEndpoint',
    'valkeyCluster',
    'valkeySecretArn',
    'vpcId',
    'subnetIds',
    'securityGroupIds',
  ],
  selfmanaged: [
    'moduleArtifact',
    'selfManagedShards',
    'selfManagedReplicas',
    'instanceType',
    'dataVolumeGiB',
    'replacedNodes',
  ],
};
const JWT_KEYS = ['jwtIssuer', 'jwtAudience'];
/** The cache kinds that offer IAM authentication (`-c cacheAuth=iam`). */
const IAM_KINDS: readonly string[] = ['elasticache', 'serverless'];

/** Every context key the app reads, for the README and for typo hints. */
export const CONTEXT_KEYS = [
  'cache',
  'cacheAuth',
  ...CACHE_KEYS.elasticache,
  ...CACHE_KEYS.serverless,
  ...CACHE_KEYS.existing,
  ...CACHE_KEYS.selfmanaged,
  'auth',
  ...JWT_KEYS,
  'wire',
  'defaultQueue',
  'throttleRate',
  'throttleBurst',
  'maxConcurrency',
  'provisionedPollers',
  'batchSize',
  'maxBatchingWindowSeconds',
  'fifo',
  'visibilityTimeoutSeconds',
  'maxReceiveCount',
  'dedupeTtlMs',
  'ackReplicas',
  'ackTimeoutMs',
  'interfaceEndpoints',
  'runtime',
  'logRetentionDays',
  'keepLogsOnDelete',
  'alarmTopicArn',
  'bundleDir',
  'stackName',
] as const;

/**
 * @param keys every context key present (`node.getAllContext()`); each one the app does not
 * read is a problem naming the closest known key. Default: none checked.
 */
export function settingsFromContext(
  read: ContextReader,
  keys: readonly string[] = [],
): {
  settings: EchoMqSettings;
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

  const kind = text('cache') ?? 'elasticache';
  // An unknown kind is one problem: every key that would depend on the kind is left unjudged
  // (and out of the settings), so a typo does not also report each of them.
  const known = CACHE_KINDS.some((cacheKind) => cacheKind === kind);
  if (!known) {
    problems.push(
      `cache must be one of ${CACHE_KINDS.join(', ')}; got '${kind}' (did you mean '${closestKey(kind, CACHE_KINDS)}'?).`,
    );
  }
  for (const [owner, keys] of known ? Object.entries(CACHE_KEYS) : []) {
    if (owner === kind) continue;
    for (const key of keys) {
      if (text(key) !== undefined) problems.push(misplaced(key, owner, kind, text(key)));
    }
  }
  const cacheAuth = text('cacheAuth');
  if (known && cacheAuth !== undefined && cacheAuth !== 'password' && !IAM_KINDS.includes(kind)) {
    problems.push(
      `cacheAuth=${cacheAuth} applies only to cache=${IAM_KINDS.join(' or cache=')} (ElastiCache IAM authentication); cache=${kind} authenticates with a password.`,
    );
  }
  const auth = text('auth') ?? 'iam';
  if (auth !== 'iam' && auth !== 'jwt') problems.push(`auth must be iam or jwt; got '${auth}'.`);
  if (auth !== 'jwt') {
    for (const key of JWT_KEYS) {
      if (text(key) !== undefined) problems.push(`${key} applies only to auth=jwt.`);
    }
  }

  const cache = cacheFromContext(kind, { text, number, flag, list }, cacheAuth);
  const settings: EchoMqSettings = {
    ...(cache === undefined ? {} : { cache }),
    bundleDir: text('bundleDir'),
    emq: {
      wire: text('wire'),
      defaultQueue: text('defaultQueue'),
      dedupeTtlMs: number('dedupeTtlMs'),
      // Judged against the kind's replicas: left out with an unknown kind.
      ...(known ? { ackReplicas: number('ackReplicas') } : {}),
      ackTimeoutMs: number('ackTimeoutMs'),
    },
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
    logRetentionDays: number('logRetentionDays'),
    keepLogsOnDelete: flag('keepLogsOnDelete'),
    alarmTopicArn: text('alarmTopicArn'),
  };
  const stackName = text('stackName') ?? 'EchoMqLambda';
  if (!/^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(stackName)) {
    problems.push('stackName must start with a letter and hold only letters, digits and -.');
  }
  return { settings, stackName, problems };
}

/** A key of another kind; durability names why where AWS offers none for the chosen kind. */
function misplaced(key: string, owner: string, kind: string, value: string | undefined): string {
  if (key === 'durability' && kind === 'serverless' && value !== 'off') {
    return `durability=${value} is not offered on cache=serverless: AWS supports durability on node-based ElastiCache for Valkey 9.0 or later only, not on ElastiCache Serverless; use cache=elasticache.`;
  }
  if (key === 'durability' && value !== 'off') {
    return `durability applies only to cache=${owner} (ElastiCache for Valkey 9.x node-based); cache=${kind} is not a cache the stack can give a durability log.`;
  }
  return `${key} applies only to cache=${owner}.`;
}

interface Readers {
  text(key: string): string | undefined;
  number(key: string): number | undefined;
  flag(key: string): boolean | undefined;
  list(key: string): string[] | undefined;
}

function cacheFromContext(
  kind: string,
  read: Readers,
  cacheAuth: string | undefined,
): CacheSettings | undefined {
  // Checked with the other values in cache-settings.ts, so a typo is listed with every problem.
  const auth = cacheAuth === undefined ? {} : { cacheAuth: cacheAuth as CacheAuth };
  switch (kind) {
    case 'elasticache':
      return {
        kind,
        ...auth,
        nodeType: read.text('nodeType'),
        shards: read.number('shards'),
        replicasPerShard: read.number('replicasPerShard'),
        engineVersion: read.text('engineVersion'),
        // Checked in durability-settings.ts with the engine and node type it must fit.
        durability: read.text('durability') as Durability | undefined,
      };
    case 'serverless':
      return {
        kind,
        ...auth,
        majorEngineVersion: read.text('serverlessEngineVersion'),
        dataStorageMaxGb: read.number('dataStorageMaxGb'),
        ecpuPerSecondMax: read.number('ecpuPerSecondMax'),
      };
    case 'existing':
      return {
        kind,
        urls: read.list('valkeyEndpoint') ?? [],
        cluster: read.flag('valkeyCluster'),
        secretArn: read.text('valkeySecretArn'),
      };
    case 'selfmanaged':
      return {
        kind,
        moduleArtifact: read.text('moduleArtifact'),
        shards: read.number('selfManagedShards'),
        replicasPerShard: read.number('selfManagedReplicas'),
        instanceType: read.text('instanceType'),
        dataVolumeGiB: read.number('dataVolumeGiB'),
        replacedNodes: read.list('replacedNodes')?.map(Number),
      };
    default:
      return undefined;
  }
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
