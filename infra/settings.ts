/**
 * Everything a deployment of echomq-lambda can choose, the default of every field, and the one
 * check that reports every invalid choice at once, before any construct is built.
 *
 * Settings are plain data (they come from `-c key=value` or from code), so the same check serves
 * `cdk synth` and the tests.
 */

import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DEFAULTS } from '../src/config.js';
import { checkAckReplicas, defaultAckReplicas } from './ack-settings.js';
import { defaultBundleDir } from './bundle-dir.js';
import {
  type CacheSettings,
  type Resolved,
  type ResolvedCache,
  resolveCache,
} from './cache-settings.js';
import { type NetworkSettings, type ResolvedNetwork, resolveNetwork } from './network-settings.js';
import { checkDedupeTtl, type ResolvedSqs, resolveSqs, type SqsSettings } from './sqs-settings.js';

export {
  CACHE_AUTHS,
  CACHE_KINDS,
  type CacheAuth,
  type CacheKind,
  type CacheSettings,
  DEFAULT_ACCESS_STRING,
  type ElastiCacheSettings,
  type ExistingCacheSettings,
  normaliseUrl,
  type ResolvedCache,
  SELFMANAGED_ACCESS_STRING,
  SERVERLESS_ACCESS_STRING,
  type SelfManagedCacheSettings,
  type ServerlessCacheSettings,
} from './cache-settings.js';
export { DURABILITIES, type Durability } from './durability-settings.js';
export type { NetworkSettings } from './network-settings.js';
export type { SqsSettings } from './sqs-settings.js';

/** The EMQ_* tunables every function receives (see src/config.ts for their meaning). */
export interface EmqSettings {
  /** `EMQ_WIRE`, also the identity the fence installer writes. Default `'1'`. */
  readonly wire?: string;
  /** `EMQ_DEFAULT_QUEUE` of the SQS function. Default `'default'`. */
  readonly defaultQueue?: string;
  /** `EMQ_MAX_PAYLOAD_BYTES`. Default `262144`. */
  readonly maxPayloadBytes?: number;
  /** `EMQ_DEDUPE_TTL_MS`. Default `3600000`. */
  readonly dedupeTtlMs?: number;
  /** `EMQ_COMMAND_TIMEOUT_MS`. Default `2000`. */
  readonly commandTimeoutMs?: number;
  /** `EMQ_CONNECT_TIMEOUT_MS`. Default `3000`. */
  readonly connectTimeoutMs?: number;
  /**
   * `EMQ_ACK_REPLICAS` (SPEC §11): replicas that must confirm each write before it is
   * acknowledged. Default `1` where the stack knows every shard has a replica and no log
   * confirms writes (elasticache with durability async or off, selfmanaged with replicas),
   * else `0` (elasticache with durability=sync, existing, serverless, no replicas).
   * Serverless refuses anything but 0 (it has no WAIT).
   */
  readonly ackReplicas?: number;
  /** `EMQ_ACK_TIMEOUT_MS`: how long WAIT may wait for them. Default `1000`. */
  readonly ackTimeoutMs?: number;
}

export type ApiAuth =
  | { readonly kind: 'iam' }
  | {
      readonly kind: 'jwt';
      /** The token issuer, an https URL (for Cognito: https://cognito-idp.<region>.amazonaws.com/<pool id>). */
      readonly issuer: string;
      /** Accepted `aud` (or `client_id`) values; at least one. */
      readonly audience: readonly string[];
    };

export interface HttpSettings {
  /** Who may call the routes. Default `{ kind: 'iam' }` (SigV4-signed calls). */
  readonly auth?: ApiAuth;
  /** Steady-state requests per second of the stage. Default `100`. */
  readonly throttleRate?: number;
  /** Burst of requests of the stage. Default `200`. */
  readonly throttleBurst?: number;
  /** Function timeout in seconds, at most 29 (the HTTP API's own limit is 30). Default `10`. */
  readonly timeoutSeconds?: number;
  /** Function memory in MiB. Default `512`. */
  readonly memoryMiB?: number;
}

/** The Lambda runtimes the bundles are built and tested for. */
export const RUNTIMES = ['nodejs22.x', 'nodejs24.x'] as const;
export type RuntimeName = (typeof RUNTIMES)[number];

export interface EchoMqSettings {
  /** Where the functions find Valkey. Default `{ kind: 'elasticache' }`. */
  readonly cache?: CacheSettings;
  /** Folder of the prebuilt bundles (`http/`, `sqs/`, `fence/`, each with `index.mjs`). Default: the package's own `dist/functions`. */
  readonly bundleDir?: string;
  /** EMQ_* tunables. Default: each field's default. */
  readonly emq?: EmqSettings;
  /** The HTTP API and its function. Default: each field's default. */
  readonly http?: HttpSettings;
  /** The queues and the SQS function. Default: each field's default. */
  readonly sqs?: SqsSettings;
  /** The VPC the stack creates, or the user's VPC. Default: each field's default. */
  readonly network?: NetworkSettings;
  /** Lambda runtime of every function. Default `'nodejs22.x'`. */
  readonly runtime?: RuntimeName;
  /** Days every log group keeps events (a CloudWatch Logs retention value). Default `30`. */
  readonly logRetentionDays?: number;
  /** Keep log groups when the stack is deleted. Default `false` (a teardown leaves nothing). */
  readonly keepLogsOnDelete?: boolean;
  /** SNS topic ARN the alarms notify. Default: none (alarms only change state). */
  readonly alarmTopicArn?: string;
}

export interface ResolvedSettings {
  readonly cache: ResolvedCache;
  readonly bundleDir: string;
  readonly emq: Resolved<EmqSettings>;
  readonly http: Resolved<HttpSettings>;
  readonly sqs: ResolvedSqs;
  readonly network: ResolvedNetwork;
  readonly runtime: RuntimeName;
  readonly logRetentionDays: RetentionDays;
  readonly keepLogsOnDelete: boolean;
  readonly alarmTopicArn: string | undefined;
}

/** Fills every default and collects every problem; `problems` is empty when the settings are valid. */
export function resolveSettings(input: EchoMqSettings = {}): {
  settings: ResolvedSettings;
  problems: string[];
} {
  const problems: string[] = [];
  const check = (ok: boolean, problem: string) => {
    if (!ok) problems.push(problem);
  };
  const int = (name: string, value: number, min: number, max: number) =>
    check(
      Number.isSafeInteger(value) && value >= min && value <= max,
      `${name} must be a whole number from ${min} to ${max}.`,
    );

  const resolvedCache = resolveCache(input.cache ?? { kind: 'elasticache' }, check, int);

  const emq = {
    wire: input.emq?.wire ?? DEFAULTS.wire,
    defaultQueue: input.emq?.defaultQueue ?? DEFAULTS.defaultQueue,
    maxPayloadBytes: input.emq?.maxPayloadBytes ?? DEFAULTS.maxPayloadBytes,
    dedupeTtlMs: input.emq?.dedupeTtlMs ?? DEFAULTS.dedupeTtlMs,
    commandTimeoutMs: input.emq?.commandTimeoutMs ?? DEFAULTS.commandTimeoutMs,
    connectTimeoutMs: input.emq?.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
    ackReplicas: input.emq?.ackReplicas ?? defaultAckReplicas(resolvedCache),
    ackTimeoutMs: input.emq?.ackTimeoutMs ?? DEFAULTS.ackTimeoutMs,
  };
  checkAckReplicas(emq.ackReplicas, resolvedCache, check, int);
  int('ackTimeoutMs', emq.ackTimeoutMs, 1, 60_000);
  check(/^[\x21-\x7e]{1,64}$/.test(emq.wire), 'wire must be 1 to 64 printable ASCII characters.');
  check(
    /^[A-Za-z0-9._-]{1,64}$/.test(emq.defaultQueue),
    'defaultQueue must be a queue name: 1 to 64 of A-Z a-z 0-9 . _ -',
  );
  // An SQS message is at most 256 KiB and a synchronous Lambda request at most 6 MB.
  int('maxPayloadBytes', emq.maxPayloadBytes, 0, 6_000_000);
  int('dedupeTtlMs', emq.dedupeTtlMs, 1_000, 2_592_000_000);
  int('commandTimeoutMs', emq.commandTimeoutMs, 1, 60_000);
  int('connectTimeoutMs', emq.connectTimeoutMs, 1, 60_000);
  // A self-managed cluster loads the module with the identity the functions expect.
  const cache: ResolvedCache =
    resolvedCache.kind === 'selfmanaged' ? { ...resolvedCache, wire: emq.wire } : resolvedCache;

  const auth = input.http?.auth ?? { kind: 'iam' };
  if (auth.kind === 'jwt') {
    check(/^https:\/\/\S+$/.test(auth.issuer), 'jwtIssuer must be an https URL.');
    check(
      auth.audience.length > 0 && auth.audience.every((value) => value.trim() !== ''),
      'jwtAudience must name at least one audience (comma-separated).',
    );
  } else {
    check(auth.kind === 'iam', "auth must be 'iam' or 'jwt'.");
  }
  const http = {
    auth,
    throttleRate: input.http?.throttleRate ?? 100,
    throttleBurst: input.http?.throttleBurst ?? 200,
    timeoutSeconds: input.http?.timeoutSeconds ?? 10,
    memoryMiB: input.http?.memoryMiB ?? 512,
  };
  int('throttleRate', http.throttleRate, 1, 100_000);
  int('throttleBurst', http.throttleBurst, 1, 100_000);
  int('http timeoutSeconds', http.timeoutSeconds, 1, 29);
  int('http memoryMiB', http.memoryMiB, 128, 10_240);

  const sqs = resolveSqs(input.sqs, check, int);
  checkDedupeTtl(emq.dedupeTtlMs, sqs, check);

  const network = resolveNetwork(input.network, cache.kind, check);
  const runtime = input.runtime ?? 'nodejs22.x';
  check(RUNTIMES.includes(runtime), `runtime must be one of ${RUNTIMES.join(', ')}.`);
  int('maxAzs', network.maxAzs, 2, 3);

  const logRetentionDays = input.logRetentionDays ?? RetentionDays.ONE_MONTH;
  check(
    Object.values(RetentionDays).includes(logRetentionDays),
    `logRetentionDays must be a CloudWatch Logs retention (${retentionChoices()}).`,
  );
  const alarmTopicArn = input.alarmTopicArn;
  check(
    alarmTopicArn === undefined || /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:\S+$/.test(alarmTopicArn),
    'alarmTopicArn must be an SNS topic ARN.',
  );

  return {
    settings: {
      cache,
      bundleDir: input.bundleDir ?? defaultBundleDir(),
      emq,
      http,
      sqs,
      network,
      runtime,
      logRetentionDays,
      keepLogsOnDelete: input.keepLogsOnDelete ?? false,
      alarmTopicArn,
    },
    problems,
  };
}

function retentionChoices(): string {
  return Object.values(RetentionDays)
    .filter((value) => typeof value === 'number')
    .join(', ');
}

/** Thrown with every problem of a settings object, one per line. */
export class InvalidSettingsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(
      `echomq-lambda: ${problems.length} invalid setting${problems.length === 1 ? '' : 's'}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
    );
    this.name = 'InvalidSettingsError';
  }
}
