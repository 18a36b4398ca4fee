/**
 * The deployment: everything a deployment of echomq-lambda can choose, the default of every
 * field, and the one check that reports every invalid choice at once, before any construct is
 * built.
 *
 * A deployment is plain data (it comes from `-c key=value` or from the construct's props), so
 * the same check serves `cdk synth` and the tests. Its `settings` are the EMQ_* values only.
 */

import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { SETTING_NAMES, SETTINGS, type SettingValues } from '../../src/settings/settings-table.js';
import type { CacheSpec, ResolvedCache } from '../cache/modules.js';
import { DEFAULT_CACHE_KIND } from '../cache/registry.js';
import type { Resolved } from '../shared/resolved.js';
import { checkAckReplicas, defaultAckReplicas } from './ack-replicas.js';
import { defaultBundleDir } from './bundle-dir.js';
import { missingBundles } from './bundles.js';
import { resolveCache } from './cache.js';
import { closestKey } from './context-keys.js';
import { settingsProblems } from './environment.js';
import { type NetworkOptions, type ResolvedNetwork, resolveNetwork } from './network.js';
import { FUNCTION_TIMEOUT_PROP, type Overrides } from './overrides.js';
import {
  checkRecordLife,
  checkVisibility,
  type Redelivery,
  type ResolvedSqs,
  resolveSqs,
  type SqsOptions,
  sourceRedelivery,
} from './sqs.js';

export type { ResolvedNetwork } from './network.js';
export type { Overrides, QueueOverrides } from './overrides.js';
export type { Redelivery, SqsOptions } from './sqs.js';

export type ApiAuth =
  | { readonly kind: 'iam' }
  | {
      readonly kind: 'jwt';
      /** The token issuer, an https URL (for Cognito: https://cognito-idp.<region>.amazonaws.com/<pool id>). */
      readonly issuer: string;
      /** Accepted `aud` (or `client_id`) values; at least one. */
      readonly audience: readonly string[];
    };

export interface HttpOptions {
  /**
   * Who may call the routes.
   * @default `{ kind: 'iam' }` (SigV4-signed calls)
   */
  readonly auth?: ApiAuth;
  /**
   * Steady-state requests per second of the stage.
   * @default `100`
   */
  readonly throttleRate?: number;
  /**
   * Burst of requests of the stage.
   * @default `200`
   */
  readonly throttleBurst?: number;
  /**
   * Function timeout in seconds, at most 29 (the HTTP API's own limit is 30).
   * @default `10`
   */
  readonly timeoutSeconds?: number;
  /**
   * Function memory in MiB.
   * @default `512`
   */
  readonly memoryMiB?: number;
}

/** Days between password rotations where the deployment says nothing. */
export const DEFAULT_PASSWORD_ROTATION_DAYS = 30;

/** The Lambda runtimes the bundles are built and tested for. */
export const RUNTIMES = ['nodejs22.x', 'nodejs24.x'] as const;
export type RuntimeName = (typeof RUNTIMES)[number];
/** The oldest Node.js the bundles run on (esbuild target node22, ES modules). */
const OLDEST_NODE = 22;

/** Whether Lambda's runtime `name` runs the bundles: Node.js 22 or later. */
export function runsBundles(name: string): boolean {
  const major = /^nodejs(\d+)\.x$/.exec(name)?.[1];
  return major !== undefined && Number(major) >= OLDEST_NODE;
}

export interface EchoMqDeployment {
  /**
   * Where the functions find Valkey.
   * @default `{ kind: 'elasticache' }`
   */
  readonly cache?: CacheSpec;
  /**
   * Folder of the prebuilt bundles (`http/`, `sqs/`, `fence/`, `rotate/`, each with `index.mjs`).
   * @default the package's own `dist/functions`
   */
  readonly bundleDir?: string;
  /**
   * The EMQ_* settings every function receives: one field per row of the settings table
   * (src/settings/settings-table.ts: env name, default, bounds).
   * @default each row's default, but `ackReplicas`, which defaults by the cache (ack-replicas.ts) where the table's 0 would leave a replica-backed write unconfirmed
   */
  readonly settings?: SettingValues;
  /**
   * The HTTP API and its function.
   * @default each field's default
   */
  readonly http?: HttpOptions;
  /**
   * The queues and the SQS function.
   * @default each field's default
   */
  readonly sqs?: SqsOptions;
  /**
   * Which faces there are: a rule between a face's function and its front or queue holds only where
   * the face is.
   * @default both
   */
  readonly faces?: { readonly http: boolean; readonly sqs: boolean };
  /**
   * The redelivery figures of the queue the SQS face reads where the deployment does not make it
   * (the team's own queue), checked against dedupeTtlMs in its place.
   * @default the new queue's
   */
  readonly redelivery?: Redelivery;
  /**
   * The VPC the stack creates, or the user's VPC.
   * @default each field's default
   */
  readonly network?: NetworkOptions;
  /**
   * Lambda runtime of every function.
   * @default `'nodejs22.x'`
   */
  readonly runtime?: RuntimeName;
  /**
   * X-Ray active tracing on the functions and the API stage (X-Ray's default sampling).
   * @default `true`
   */
  readonly tracing?: boolean;
  /**
   * Days every log group keeps events (a CloudWatch Logs retention value).
   * @default `30`
   */
  readonly logRetentionDays?: number;
  /**
   * Keep log groups when the stack is deleted.
   * @default `false` (a teardown leaves nothing)
   */
  readonly keepLogsOnDelete?: boolean;
  /**
   * Days between rotations of the functions' and installer's passwords of a cache the
   * construct creates (ElastiCache, Serverless, MemoryDB, self-managed), from 1 to 1000; `0`
   * turns rotation off.
   * @default `30`
   */
  readonly passwordRotationDays?: number;
  /**
   * SNS topic ARN the alarms notify.
   * @default none (alarms only change state)
   */
  readonly alarmTopicArn?: string;
  /**
   * What the construct's override props set over the choices above.
   * @default none
   */
  readonly overrides?: Overrides;
}

export interface ResolvedDeployment {
  readonly cache: ResolvedCache;
  readonly bundleDir: string;
  readonly settings: Required<SettingValues>;
  readonly http: Resolved<HttpOptions>;
  readonly sqs: ResolvedSqs;
  readonly network: ResolvedNetwork;
  readonly runtime: RuntimeName;
  readonly tracing: boolean;
  readonly logRetentionDays: RetentionDays;
  readonly keepLogsOnDelete: boolean;
  readonly passwordRotationDays: number;
  readonly alarmTopicArn: string | undefined;
}

/** Fills every default and collects every problem; `problems` is empty when the deployment is valid. */
export function resolveDeployment(input: EchoMqDeployment = {}): {
  deployment: ResolvedDeployment;
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

  const resolvedCache = resolveCache(input.cache ?? { kind: DEFAULT_CACHE_KIND }, ensure, int);

  for (const key of Object.keys(input.settings ?? {})) {
    ensure(
      (SETTING_NAMES as readonly string[]).includes(key),
      `settings.${key} is not a setting: did you mean settings.${closestKey(key, SETTING_NAMES)}? (The settings are the rows of docs/configuration.md.)`,
    );
  }
  const settings = resolveSettingValues(input.settings, resolvedCache);
  checkAckReplicas(settings.ackReplicas, resolvedCache, ensure);
  for (const problem of settingsProblems(settings)) ensure(false, problem);
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
  const overrides = input.overrides ?? {};
  // An override of the timeout reaches both functions: it meets the rules of both options.
  const timeout = (option: string, own: number) =>
    overrides.functionTimeoutSeconds === undefined
      ? { name: option, seconds: own }
      : { name: FUNCTION_TIMEOUT_PROP, seconds: overrides.functionTimeoutSeconds };
  const httpTimeout = timeout('http timeoutSeconds', http.timeoutSeconds);
  const faces = input.faces ?? { http: true, sqs: true };
  // API Gateway gives an integration at most 30 s: the function must answer within it.
  if (faces.http || httpTimeout.name !== FUNCTION_TIMEOUT_PROP) {
    int(httpTimeout.name, httpTimeout.seconds, 1, 29);
  }
  int('http memoryMiB', http.memoryMiB, 128, 10_240);

  const sqs = resolveSqs(input.sqs, ensure, int);
  if (faces.sqs) {
    const sqsTimeout = timeout('sqs timeoutSeconds', sqs.timeoutSeconds);
    int(sqsTimeout.name, sqsTimeout.seconds, 1, 900);
    const source = input.redelivery ?? sourceRedelivery(sqs, overrides.queue);
    checkVisibility(source, sqsTimeout, ensure);
    checkRecordLife(settings.dedupeTtlMs, source, ensure);
    const reserved = overrides.reservedConcurrency;
    // Lambda's rule for SQS-driven functions: reserved concurrency below the event source's
    // maximum throttles the invocations it starts, and throttled batches burn receives.
    ensure(
      reserved === undefined || sqs.maxConcurrency === undefined || reserved >= sqs.maxConcurrency,
      `functionProps.reservedConcurrentExecutions (${reserved}) must be at least maxConcurrency (${sqs.maxConcurrency}): the event source would start invocations Lambda throttles, and each throttled batch spends a receive of every record. Raise it, lower maxConcurrency, or leave it out.`,
    );
  }
  for (const { prop, use } of overrides.owned ?? []) {
    ensure(false, `functionProps.${prop} is the construct's to set: use ${use}.`);
  }

  const network = resolveNetwork(input.network, cache.kind, ensure);
  const runtime = input.runtime ?? 'nodejs22.x';
  ensure(RUNTIMES.includes(runtime), `runtime must be one of ${RUNTIMES.join(', ')}.`);
  const overriddenRuntime = overrides.runtime;
  ensure(
    overriddenRuntime === undefined || runsBundles(overriddenRuntime),
    `functionProps.runtime is ${overriddenRuntime}: the bundles are ES modules for Node.js ${OLDEST_NODE} or later; give nodejs${OLDEST_NODE}.x or later, or leave it to runtime (${RUNTIMES.join(', ')}).`,
  );
  int('maxAzs', network.maxAzs, 2, 3);

  const logRetentionDays = input.logRetentionDays ?? RetentionDays.ONE_MONTH;
  ensure(
    Object.values(RetentionDays).includes(logRetentionDays),
    `logRetentionDays must be a CloudWatch Logs retention (${retentionChoices()}).`,
  );
  const passwordRotationDays = input.passwordRotationDays ?? DEFAULT_PASSWORD_ROTATION_DAYS;
  ensure(
    passwordRotationDays === 0 ||
      (Number.isSafeInteger(passwordRotationDays) &&
        passwordRotationDays >= 1 &&
        passwordRotationDays <= 1000),
    'passwordRotationDays must be a whole number from 1 to 1000 (Secrets Manager rotation), or 0 to turn rotation off.',
  );
  const alarmTopicArn = input.alarmTopicArn;
  ensure(
    alarmTopicArn === undefined || /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:\S+$/.test(alarmTopicArn),
    'alarmTopicArn must be an SNS topic ARN.',
  );

  return {
    deployment: {
      cache,
      bundleDir: input.bundleDir ?? defaultBundleDir(),
      settings,
      http,
      sqs,
      network,
      runtime,
      tracing: input.tracing ?? true,
      logRetentionDays,
      keepLogsOnDelete: input.keepLogsOnDelete ?? false,
      passwordRotationDays,
      alarmTopicArn,
    },
    problems,
  };
}

/** Each setting as given, else its row's default (ackReplicas: the cache's, ack-replicas.ts). */
function resolveSettingValues(
  input: SettingValues = {},
  cache: ResolvedCache,
): Required<SettingValues> {
  const defaults = Object.fromEntries(SETTING_NAMES.map((name) => [name, SETTINGS[name].default]));
  const given = Object.fromEntries(
    Object.entries(input).filter(([, value]) => value !== undefined && value !== ''),
  ) as SettingValues;
  return {
    ...(defaults as Required<SettingValues>),
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
 * Resolves a deployment and checks it with the bundles and any `more` problems the caller
 * found; throws every problem at once. The checks name each field by its context key;
 * `naming` renames them where the deployment came from props (constructs/prop-names.ts).
 */
export function checkedDeployment(
  input: EchoMqDeployment,
  more: readonly string[] = [],
  naming: (problem: string) => string = (problem) => problem,
): ResolvedDeployment {
  const { deployment, problems } = resolveDeployment(input);
  const all = [...more, ...problems.map(naming), ...missingBundles(deployment.bundleDir)];
  if (all.length > 0) throw new InvalidDeploymentError(all);
  return deployment;
}

/** Thrown with every problem of a deployment (the EchoMq props or the app's context), one per line. */
export class InvalidDeploymentError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(
      `echomq-lambda: ${problems.length} problem${problems.length === 1 ? '' : 's'} in the props or context:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
    );
    this.name = 'InvalidDeploymentError';
  }
}
