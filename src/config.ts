/**
 * Every EMQ_* environment variable, read in one place, typed, defaulted and validated.
 * A bad value fails fast with a ConfigError naming the variable.
 */
import { assertQueue } from './keyspace.js';
import { ConfigError, EmqError } from './outcomes.js';

export type ExecutorChoice = 'auto' | 'native' | 'function' | 'script';

/**
 * Every default, defined once: the config module, the connector and the CDK stack (infra)
 * import these, so a default documented here is the default everywhere.
 */
export const DEFAULTS = {
  /** `EMQ_URL`. */
  url: 'redis://127.0.0.1:6379',
  /** `EMQ_EXECUTOR`. */
  executor: 'auto' as ExecutorChoice,
  /** `EMQ_WIRE`: the wire identity (SPEC §6). */
  wire: '1',
  /** `EMQ_DEFAULT_QUEUE`. */
  defaultQueue: 'default',
  /** `EMQ_MAX_PAYLOAD_BYTES`: 256 KiB, the SQS message limit. */
  maxPayloadBytes: 262_144,
  /** `EMQ_DEDUPE_TTL_MS`: one hour (SPEC §5). */
  dedupeTtlMs: 3_600_000,
  /** `EMQ_COMMAND_TIMEOUT_MS`. */
  commandTimeoutMs: 2_000,
  /** `EMQ_CONNECT_TIMEOUT_MS`. */
  connectTimeoutMs: 3_000,
  /** `EMQ_ACK_REPLICAS`: replicas that must confirm a write before it is acknowledged (SPEC §11). */
  ackReplicas: 0,
  /** `EMQ_ACK_TIMEOUT_MS`: how long WAIT may wait for those replicas. */
  ackTimeoutMs: 1_000,
  /** `EMQ_ALLOW_VOLATILE_EVICTION`: serve on a volatile-* memory policy (SPEC §11). */
  allowVolatileEviction: false,
  /** `EMQ_CALLER_ID_MAX_AGE_MS`: oldest caller-chosen id time accepted; 0 turns the check off. */
  callerIdMaxAgeMs: 86_400_000,
  /** `EMQ_IAM_AUTH`: authenticate with ElastiCache IAM tokens instead of a password. */
  iamAuth: false,
  /** `EMQ_IAM_SERVERLESS`: the cache IAM tokens are signed for is a Serverless cache. */
  iamServerless: false,
} as const;

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
  urls: string[];
  /** `EMQ_CLUSTER`: talk to a Valkey cluster. Default `false`. */
  cluster: boolean;
  /** `EMQ_EXECUTOR`: `native` (EMQ.ENQUEUE, EMQ.ADMIT), `function` (FCALL of the `emq` library) or `auto` (native where every primary loads the module). Default `auto`. */
  executor: ExecutorChoice;
  /** `EMQ_WIRE`: the wire identity this host expects in `{emq}:version`. Default `1`. */
  wire: string;
  /** `EMQ_DEFAULT_QUEUE`: the queue of SQS records without an `emq-queue` attribute. Default `default`. */
  defaultQueue: string;
  /** `EMQ_DLQ_URL`: the SQS queue that receives permanently failed records. Default: none (they become batch item failures). */
  dlqUrl: string | undefined;
  /** `EMQ_MAX_PAYLOAD_BYTES`: the largest payload admitted. Default 262144 (256 KiB, the SQS message limit). */
  maxPayloadBytes: number;
  /** `EMQ_DEDUPE_TTL_MS`: how long an idempotency key is remembered. Default 3600000 (1 hour). */
  dedupeTtlMs: number;
  /** `EMQ_COMMAND_TIMEOUT_MS`: how long one command may take before it counts as unavailable. Default 2000. */
  commandTimeoutMs: number;
  /** `EMQ_CONNECT_TIMEOUT_MS`: how long a connection may take to open. Default 3000. */
  connectTimeoutMs: number;
  /** `EMQ_USERNAME`: the ACL user. Default: none (the `default` user). */
  username: string | undefined;
  /** `EMQ_PASSWORD`: the ACL password, for local use; deployments use EMQ_SECRET_ARN. Default: none. */
  password: string | undefined;
  /** `EMQ_SECRET_ARN`: a Secrets Manager secret holding `{"username","password"}`, read at cold start. Default: none. */
  secretArn: string | undefined;
  /**
   * `EMQ_TLS_CA`: the CA certificate(s) that sign the servers' certificates, as PEM or as
   * base64 of PEM (a private CA, such as a self-managed cluster's). Default: none (the system CAs).
   */
  tlsCa: string | undefined;
  /** `EMQ_ACK_REPLICAS`: replicas that must confirm each write (WAIT) before it is acknowledged. Default `0`. */
  ackReplicas: number;
  /** `EMQ_ACK_TIMEOUT_MS`: how long WAIT waits for them; fewer confirmations mean EMQ_UNCONFIRMED. Default 1000. */
  ackTimeoutMs: number;
  /** `EMQ_ALLOW_VOLATILE_EVICTION`: serve on a `volatile-*` maxmemory policy (dedupe records may be evicted). Default `false`. */
  allowVolatileEviction: boolean;
  /** `EMQ_CALLER_ID_MAX_AGE_MS`: caller ids older than this are refused; 0 turns the check off. Default 86400000 (one day). */
  callerIdMaxAgeMs: number;
  /**
   * `EMQ_IAM_AUTH=true`: connect with short-lived ElastiCache IAM tokens (needs EMQ_USERNAME,
   * EMQ_IAM_CACHE_NAME and a region; excludes EMQ_PASSWORD and EMQ_SECRET_ARN). Default: off.
   */
  iam: IamAuthConfig | undefined;
}

export type Env = Readonly<Record<string, string | undefined>>;

/** Reads the configuration from `env` (default `process.env`). Throws ConfigError on a bad value. */
export function loadConfig(env: Env = process.env): Config {
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  return {
    urls: urls(read('EMQ_URL') ?? DEFAULTS.url),
    cluster: flag('EMQ_CLUSTER', read('EMQ_CLUSTER') ?? 'false'),
    executor: oneOf('EMQ_EXECUTOR', read('EMQ_EXECUTOR') ?? DEFAULTS.executor, [
      'auto',
      'native',
      'function',
    ]),
    wire: wire(read('EMQ_WIRE') ?? DEFAULTS.wire),
    defaultQueue: queue(read('EMQ_DEFAULT_QUEUE') ?? DEFAULTS.defaultQueue),
    dlqUrl: dlqUrl(read('EMQ_DLQ_URL')),
    maxPayloadBytes: integer(
      'EMQ_MAX_PAYLOAD_BYTES',
      read('EMQ_MAX_PAYLOAD_BYTES'),
      DEFAULTS.maxPayloadBytes,
      0,
    ),
    dedupeTtlMs: integer(
      'EMQ_DEDUPE_TTL_MS',
      read('EMQ_DEDUPE_TTL_MS'),
      DEFAULTS.dedupeTtlMs,
      1_000,
    ),
    commandTimeoutMs: integer(
      'EMQ_COMMAND_TIMEOUT_MS',
      read('EMQ_COMMAND_TIMEOUT_MS'),
      DEFAULTS.commandTimeoutMs,
      1,
    ),
    connectTimeoutMs: integer(
      'EMQ_CONNECT_TIMEOUT_MS',
      read('EMQ_CONNECT_TIMEOUT_MS'),
      DEFAULTS.connectTimeoutMs,
      1,
    ),
    ackReplicas: integer('EMQ_ACK_REPLICAS', read('EMQ_ACK_REPLICAS'), DEFAULTS.ackReplicas, 0),
    ackTimeoutMs: integer(
      'EMQ_ACK_TIMEOUT_MS',
      read('EMQ_ACK_TIMEOUT_MS'),
      DEFAULTS.ackTimeoutMs,
      1,
    ),
    allowVolatileEviction: flag(
      'EMQ_ALLOW_VOLATILE_EVICTION',
      read('EMQ_ALLOW_VOLATILE_EVICTION') ?? String(DEFAULTS.allowVolatileEviction),
    ),
    callerIdMaxAgeMs: integer(
      'EMQ_CALLER_ID_MAX_AGE_MS',
      read('EMQ_CALLER_ID_MAX_AGE_MS'),
      DEFAULTS.callerIdMaxAgeMs,
      0,
    ),
    username: read('EMQ_USERNAME'),
    password: read('EMQ_PASSWORD'),
    secretArn: read('EMQ_SECRET_ARN'),
    tlsCa: tlsCa(read('EMQ_TLS_CA')),
    iam: iamAuth(read),
  };
}

function iamAuth(read: (name: string) => string | undefined): IamAuthConfig | undefined {
  if (!flag('EMQ_IAM_AUTH', read('EMQ_IAM_AUTH') ?? String(DEFAULTS.iamAuth))) return undefined;
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
  const serverless = flag(
    'EMQ_IAM_SERVERLESS',
    read('EMQ_IAM_SERVERLESS') ?? String(DEFAULTS.iamServerless),
  );
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

function integer(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < min) {
    throw bad(name, `a whole number of at least ${min}`);
  }
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
