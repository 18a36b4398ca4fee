/**
 * Everything a deployment of echomq-lambda can choose, the default of every field, and the one
 * check that reports every invalid choice at once, before any construct is built.
 *
 * Settings are plain data (they come from `-c key=value` or from code), so the same check serves
 * `cdk synth` and the tests.
 */

import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { SETTING_NAMES, SETTINGS, type SettingValues } from '../src/settings/settings-table.js';
import { checkAckReplicas, defaultAckReplicas } from './ack-settings.js';
import { defaultBundleDir } from './bundle-dir.js';
import { missingBundles } from './bundles.js';
import {
  type CacheSettings,
  type Resolved,
  type ResolvedCache,
  resolveCache,
} from './cache-settings.js';
import { settingsProblems } from './environment.js';
import { type NetworkSettings, type ResolvedNetwork, resolveNetwork } from './network-settings.js';
import {
  checkDedupeTtl,
  type Redelivery,
  type ResolvedSqs,
  resolveSqs,
  type SqsSettings,
  settingsRedelivery,
} from './sqs-settings.js';

export { DURABILITIES, type Durability } from './cache/elasticache/durability.js';
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
export type { NetworkSettings, ResolvedNetwork } from './network-settings.js';
export type { Redelivery, SqsSettings } from './sqs-settings.js';

/**
 * The EMQ_* tunables every function receives: one field per row of the settings table
 * (src/settings-table.ts: env name, default, bounds). `ackReplicas` defaults by the cache
 * (ack-settings.ts) where the table's 0 would leave a replica-backed write unconfirmed.
 */
export type EmqSettings = SettingValues;

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
  /**
   * The redelivery figures of the queue the SQS face reads where the settings do not make it
   * (the team's own queue), checked against dedupeTtlMs in its place. Default: the new queue's.
   */
  readonly redelivery?: Redelivery;
  /** The VPC the stack creates, or the user's VPC. Default: each field's default. */
  readonly network?: NetworkSettings;
  /** Lambda runtime of every function. Default `'nodejs22.x'`. */
  readonly runtime?: RuntimeName;
  /** X-Ray active tracing on the functions and the API stage (X-Ray's default sampling). Default `true`. */
  readonly tracing?: boolean;
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
  readonly emq: Required<EmqSettings>;
  readonly http: Resolved<HttpSettings>;
  readonly sqs: ResolvedSqs;
  readonly network: ResolvedNetwork;
  readonly runtime: RuntimeName;
  readonly tracing: boolean;
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
  const ensure = (ok: boolean, problem: string) => {
    if (!ok) problems.push(problem);
  };
  const int = (name: string, value: number, min: number, max: number) =>
    ensure(
      Number.isSafeInteger(value) && value >= min && value <= max,
      `${name} must be a whole number from ${min} to ${max}.`,
    );

  const resolvedCache = resolveCache(input.cache ?? { kind: 'elasticache' }, ensure, int);

  const emq = resolveEmq(input.emq, resolvedCache);
  checkAckReplicas(emq.ackReplicas, resolvedCache, ensure);
  for (const problem of settingsProblems(emq)) ensure(false, problem);
  const cache = resolvedCache;

  const auth = input.http?.auth ?? { kind: 'iam' };
  if (auth.kind === 'jwt') {
    ensure(/^https:\/\/\S+$/.test(auth.issuer), 'jwtIssuer must be an https URL.');
    ensure(
      auth.audience.length > 0 && auth.audience.every((value) => value.trim() !== ''),
      'jwtAudience must name at least one audience (comma-separated).',
    );
  } else {
    ensure(auth.kind === 'iam', "auth must be 'iam' or 'jwt'.");
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

  const sqs = resolveSqs(input.sqs, ensure, int);
  checkDedupeTtl(emq.dedupeTtlMs, input.redelivery ?? settingsRedelivery(sqs), ensure);

  const network = resolveNetwork(input.network, cache.kind, ensure);
  const runtime = input.runtime ?? 'nodejs22.x';
  ensure(RUNTIMES.includes(runtime), `runtime must be one of ${RUNTIMES.join(', ')}.`);
  int('maxAzs', network.maxAzs, 2, 3);

  const logRetentionDays = input.logRetentionDays ?? RetentionDays.ONE_MONTH;
  ensure(
    Object.values(RetentionDays).includes(logRetentionDays),
    `logRetentionDays must be a CloudWatch Logs retention (${retentionChoices()}).`,
  );
  const alarmTopicArn = input.alarmTopicArn;
  ensure(
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
      tracing: input.tracing ?? true,
      logRetentionDays,
      keepLogsOnDelete: input.keepLogsOnDelete ?? false,
      alarmTopicArn,
    },
    problems,
  };
}

/** Each tunable as given, else its row's default (ackReplicas: the cache's, ack-settings.ts). */
function resolveEmq(input: EmqSettings = {}, cache: ResolvedCache): Required<EmqSettings> {
  const defaults = Object.fromEntries(SETTING_NAMES.map((name) => [name, SETTINGS[name].default]));
  const given = Object.fromEntries(
    Object.entries(input).filter(([, value]) => value !== undefined && value !== ''),
  ) as EmqSettings;
  return {
    ...(defaults as Required<EmqSettings>),
    ackReplicas: defaultAckReplicas(cache),
    ...given,
  };
}

function retentionChoices(): string {
  return Object.values(RetentionDays)
    .filter((value) => typeof value === 'number')
    .join(', ');
}

/**
 * Resolves settings and checks them with the bundles and any `more` problems the caller
 * found; throws every problem at once.
 */
export function checkedSettings(
  input: EchoMqSettings,
  more: readonly string[] = [],
): ResolvedSettings {
  const { settings, problems } = resolveSettings(input);
  const all = [...more, ...problems, ...missingBundles(settings.bundleDir)];
  if (all.length > 0) throw new InvalidSettingsError(all);
  return settings;
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
