/**
 * The configuration: one shape (Config), one set of defaults (DEFAULTS), every EMQ_* variable
 * read here and nowhere else. It flows unchanged from loadConfig to connect(). A value the
 * server could not take fails at load with a ConfigError naming the variable, never echoing it
 * (only the timings that refuse a too-short EMQ_DEDUPE_TTL_MS are named: they hold no secret).
 */
import { assertQueue } from './keyspace.js';
import { ConfigError, EmqError } from './outcomes.js';
import { ADMISSION_PASSES, resendSpanMs } from './resend-span.js';
import { type IntegerSettingName, SETTINGS } from './settings-table.js';

/** The server-side families of SPEC §4, and `auto`: the first one the servers run. */
export const EXECUTORS = ['auto', 'native', 'function', 'script'] as const;
export type ExecutorChoice = (typeof EXECUTORS)[number];

/** ElastiCache IAM authentication: what each token is signed for (EMQ_USERNAME is the user id). */
export interface IamAuthConfig {
  /** The IAM-enabled RBAC user; its user name equals its user id. */
  readonly userId: string;
  /** `EMQ_IAM_CACHE_NAME`: the replication group id or Serverless cache name, lowercased. */
  readonly cacheName: string;
  /** `EMQ_IAM_REGION`, else `AWS_REGION` (Lambda sets it): the region tokens are signed for. */
  readonly region: string;
  /** `EMQ_IAM_SERVERLESS`: a Serverless cache. Default `false`. */
  readonly serverless: boolean;
}

export interface Config {
  /** `EMQ_URL`: one URL, or comma-separated cluster seeds (`redis://` or `rediss://`). Default `redis://127.0.0.1:6379`. */
  readonly urls: readonly string[];
  /** `EMQ_CLUSTER`: talk to a Valkey cluster. Default `false`. */
  readonly cluster: boolean;
  /** `EMQ_EXECUTOR`: `native` (the module), `function` (FCALL of the `emq` library), `script` (EVALSHA of the same Lua: ElastiCache Serverless) or `auto` (the first of those every primary runs). Default `auto`. */
  readonly executor: ExecutorChoice;
  /** `EMQ_WIRE`: the wire identity this host expects in `{emq}:version`. Default `1`. */
  readonly wire: string;
  /** `EMQ_DEFAULT_QUEUE`: the queue of SQS records without an `emq-queue` attribute. Default `default`. */
  readonly defaultQueue: string;
  /** `EMQ_DLQ_URL`: the SQS queue that receives permanently failed records. Default: none (they are retried). */
  readonly dlqUrl: string | undefined;
  /** `EMQ_MAX_PAYLOAD_BYTES`: the largest payload admitted, at most 6 MiB. Default 262144 (256 KiB). */
  readonly maxPayloadBytes: number;
  /** `EMQ_DEDUPE_TTL_MS`: how long an idempotency key is remembered. Default 3600000 (1 hour). */
  readonly dedupeTtlMs: number;
  /** `EMQ_COMMAND_TIMEOUT_MS`: how long one call may take before it counts as unavailable. Default 2000. */
  readonly commandTimeoutMs: number;
  /** `EMQ_CONNECT_TIMEOUT_MS`: how long a connection may take to open. Default 3000. */
  readonly connectTimeoutMs: number;
  /** `EMQ_ACK_REPLICAS`: replicas that must confirm each write (WAIT) before it is acknowledged. Default `0`. */
  readonly ackReplicas: number;
  /** `EMQ_ACK_TIMEOUT_MS`: how long WAIT waits for them, less than the command timeout. Default 1000. */
  readonly ackTimeoutMs: number;
  /** `EMQ_CALLER_ID_MAX_AGE_MS`: caller ids older than this are refused; 0 turns the check off. Default 86400000 (one day). */
  readonly callerIdMaxAgeMs: number;
  /** `EMQ_USERNAME`: the ACL user. Default: none (the user in the URL, else `default`). */
  readonly username: string | undefined;
  /** `EMQ_PASSWORD`: the ACL password, for local use; deployments use EMQ_SECRET_ARN. Default: none. */
  readonly password: string | undefined;
  /** `EMQ_SECRET_ARN`: a Secrets Manager secret holding `{"username","password"}`, read at cold start. Default: none. */
  readonly secretArn: string | undefined;
  /** `EMQ_TLS_CA`: CA certificate(s) that sign the servers' certificates, PEM or base64 of PEM. Default: none (the system CAs). */
  readonly tlsCa: string | undefined;
  /** `EMQ_IAM_AUTH=true` and its companions: connect with ElastiCache IAM tokens. Default: off. */
  readonly iam: IamAuthConfig | undefined;
}

/**
 * Every default: the tunables' from their rows in settings-table.ts (which the CDK construct
 * reads too), the connection's here.
 */
export const DEFAULTS: Config = {
  urls: ['redis://127.0.0.1:6379'],
  cluster: false,
  executor: 'auto',
  wire: SETTINGS.wire.default,
  defaultQueue: SETTINGS.defaultQueue.default,
  dlqUrl: undefined,
  maxPayloadBytes: SETTINGS.maxPayloadBytes.default,
  dedupeTtlMs: SETTINGS.dedupeTtlMs.default,
  commandTimeoutMs: SETTINGS.commandTimeoutMs.default,
  connectTimeoutMs: SETTINGS.connectTimeoutMs.default,
  ackReplicas: SETTINGS.ackReplicas.default,
  ackTimeoutMs: SETTINGS.ackTimeoutMs.default,
  callerIdMaxAgeMs: SETTINGS.callerIdMaxAgeMs.default,
  username: undefined,
  password: undefined,
  secretArn: undefined,
  tlsCa: undefined,
  iam: undefined,
};

/** The bounds every number must keep, from the settings table. */
export const LIMITS: Readonly<Record<IntegerSettingName, { min: number; max: number }>> =
  Object.fromEntries(
    Object.entries(SETTINGS).flatMap(([name, row]) =>
      row.kind === 'integer' ? [[name, { min: row.min, max: row.max }]] : [],
    ),
  ) as Record<IntegerSettingName, { min: number; max: number }>;

/** The whole configuration from defaults and the fields given: for code that builds one itself. */
export function configure(fields: Partial<Config> = {}): Config {
  const given = Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined),
  ) as Partial<Config>;
  return { ...DEFAULTS, ...given };
}

export type Env = Readonly<Record<string, string | undefined>>;

/** Reads the configuration from `env` (default `process.env`). Throws ConfigError on a bad value. */
export function loadConfig(env: Env = process.env): Config {
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const number = (key: IntegerSettingName): number =>
    integer(SETTINGS[key].env, read(SETTINGS[key].env), DEFAULTS[key], LIMITS[key]);
  const config: Config = {
    urls: urls(read('EMQ_URL') ?? DEFAULTS.urls.join(',')),
    cluster: flag('EMQ_CLUSTER', read('EMQ_CLUSTER') ?? String(DEFAULTS.cluster)),
    executor: oneOf('EMQ_EXECUTOR', read('EMQ_EXECUTOR') ?? DEFAULTS.executor, EXECUTORS),
    wire: wire(read(SETTINGS.wire.env) ?? DEFAULTS.wire),
    defaultQueue: queue(read(SETTINGS.defaultQueue.env) ?? DEFAULTS.defaultQueue),
    dlqUrl: dlqUrl(read('EMQ_DLQ_URL')),
    maxPayloadBytes: number('maxPayloadBytes'),
    dedupeTtlMs: number('dedupeTtlMs'),
    commandTimeoutMs: number('commandTimeoutMs'),
    connectTimeoutMs: number('connectTimeoutMs'),
    ackReplicas: number('ackReplicas'),
    ackTimeoutMs: number('ackTimeoutMs'),
    callerIdMaxAgeMs: number('callerIdMaxAgeMs'),
    username: read('EMQ_USERNAME'),
    password: read('EMQ_PASSWORD'),
    secretArn: read('EMQ_SECRET_ARN'),
    tlsCa: tlsCa(read('EMQ_TLS_CA')),
    iam: iamAuth(read),
  };
  // WAIT runs inside the call's time budget: a longer wait would be cut off as a timeout.
  if (config.ackReplicas > 0 && config.ackTimeoutMs >= config.commandTimeoutMs) {
    throw new ConfigError(
      'EMQ_ACK_TIMEOUT_MS must be less than EMQ_COMMAND_TIMEOUT_MS when EMQ_ACK_REPLICAS is set: WAIT runs inside the command timeout.',
    );
  }
  checkDedupeTtl(config);
  return config;
}

/**
 * A record that expires while this code may still send the same call again lets that send
 * write a second job: the key must outlive the resend span (resend-span.ts).
 */
function checkDedupeTtl(config: Config): void {
  const span = resendSpanMs(config);
  if (config.dedupeTtlMs >= span) return;
  throw new ConfigError(
    `EMQ_DEDUPE_TTL_MS is ${config.dedupeTtlMs} ms, shorter than ${span} ms, the longest span over which a function may send one admission again: ${ADMISSION_PASSES} × (EMQ_CONNECT_TIMEOUT_MS ${config.connectTimeoutMs} + EMQ_COMMAND_TIMEOUT_MS ${config.commandTimeoutMs}). A key that expires sooner would let that send write a second job. Raise EMQ_DEDUPE_TTL_MS to at least ${span}, or lower the timeouts.`,
  );
}

function iamAuth(read: (name: string) => string | undefined): IamAuthConfig | undefined {
  if (!flag('EMQ_IAM_AUTH', read('EMQ_IAM_AUTH') ?? 'false')) return undefined;
  const userId = read('EMQ_USERNAME');
  const cacheName = read('EMQ_IAM_CACHE_NAME')?.toLowerCase();
  const region = read('EMQ_IAM_REGION') ?? read('AWS_REGION');
  if (userId === undefined)
    throw bad('EMQ_USERNAME', 'the IAM-enabled user id when EMQ_IAM_AUTH is true');
  if (cacheName === undefined || !/^[a-z][a-z0-9-]{0,62}$/.test(cacheName))
    throw bad(
      'EMQ_IAM_CACHE_NAME',
      'the replication group id or Serverless cache name when EMQ_IAM_AUTH is true',
    );
  if (region === undefined || !/^[a-z]{2}(-[a-z0-9]+)+-\d+$/.test(region))
    throw bad(
      'EMQ_IAM_REGION',
      'an AWS region such as eu-west-1 (or AWS_REGION) when EMQ_IAM_AUTH is true',
    );
  // One source of credentials: a password beside IAM would be used by nothing, or by mistake.
  for (const name of ['EMQ_PASSWORD', 'EMQ_SECRET_ARN']) {
    if (read(name) !== undefined) throw bad(name, 'unset when EMQ_IAM_AUTH is true');
  }
  const serverless = flag('EMQ_IAM_SERVERLESS', read('EMQ_IAM_SERVERLESS') ?? 'false');
  return { userId, cacheName, region, serverless };
}

function bad(name: string, expected: string): ConfigError {
  // The value itself is not echoed: it may be a URL with credentials or a password.
  return new ConfigError(`${name} is invalid: expected ${expected}.`);
}

function urls(value: string): string[] {
  const list = value.split(',').map((part) => part.trim());
  for (const url of list) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw bad(
        'EMQ_URL',
        'redis://host:port or rediss://host:port, comma-separated for cluster seeds',
      );
    }
    if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
      throw bad('EMQ_URL', 'URLs with the redis:// or rediss:// scheme');
    }
  }
  return list;
}

function flag(name: string, value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw bad(name, '`true` or `false`');
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  const found = allowed.find((option) => option === value);
  if (found === undefined) throw bad(name, `one of ${allowed.join(', ')}`);
  return found;
}

function integer(
  name: string,
  value: string | undefined,
  fallback: number,
  range: { readonly min: number; readonly max: number },
): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < range.min) {
    throw bad(name, `a whole number of at least ${range.min}`);
  }
  if (parsed > range.max) throw bad(name, `a whole number of at most ${range.max}`);
  return parsed;
}

function wire(value: string): string {
  if (!/^[\x21-\x7e]{1,64}$/.test(value))
    throw bad('EMQ_WIRE', '1 to 64 printable ASCII characters');
  return value;
}

function queue(value: string): string {
  try {
    assertQueue(value);
  } catch (error) {
    if (error instanceof EmqError)
      throw bad('EMQ_DEFAULT_QUEUE', 'a queue name: 1 to 64 of A-Z a-z 0-9 . _ -');
    throw error;
  }
  return value;
}

/** PEM as given, else base64 of PEM (how a deployment passes it in one environment value). */
function tlsCa(value: string | undefined): string | undefined {
  if (value === undefined || value.includes('-----BEGIN CERTIFICATE-----')) return value;
  const decoded = /^[A-Za-z0-9+/=\s]+$/.test(value) ? Buffer.from(value, 'base64').toString() : '';
  if (!decoded.includes('-----BEGIN CERTIFICATE-----'))
    throw bad('EMQ_TLS_CA', 'PEM certificates, or their base64');
  return decoded;
}

function dlqUrl(value: string | undefined): string | undefined {
  if (value !== undefined && !/^https?:\/\/\S+$/.test(value))
    throw bad('EMQ_DLQ_URL', 'an SQS queue URL (https://...)');
  return value;
}
