/**
 * Every EMQ_* variable, one row each, and the one source of everything about it: the variable,
 * its parser, its default, its bounds, who sets it in a deployment and its description. A row's
 * name is its Config field; a row the construct exposes (`deploy.by: 'setting'`) has that name
 * as its CDK context key (`-c ackTimeoutMs=500`) and as its field of the construct's `settings`
 * prop. Config, its defaults and loadConfig (config.ts), the construct's settings (infra/) and
 * the settings tables of docs/configuration.md and docs/deploy.md (scripts/settings-docs.ts)
 * are derived from these rows, so a new setting is one row here. The shape of a row is checked
 * at compile time: a default its parser could not yield does not compile.
 */
import {
  type Bounds,
  dlqUrl,
  familyChoice,
  flag,
  iamAuth,
  type Parser,
  queue,
  text,
  tlsCa,
  urls,
  wholeNumber,
  wire,
} from './settings-parsers.js';

/**
 * Who sets a variable in a deployment: a construct setting (the functions of `faces` receive
 * it; `default` is the docs' text where the construct's default is not the row's), or the
 * construct itself from the cache or the queues it is given or from where it stands (`construct`),
 * or nobody (local use only).
 */
export type Deploy =
  | { readonly by: 'setting'; readonly faces: 'all' | 'sqs'; readonly default?: string }
  | { readonly by: 'cache' | 'queues' | 'construct' | 'local' };

/** A further variable one row's parser reads (IAM authentication's companions), for the docs. */
export interface Companion {
  readonly env: string;
  /** The docs' default cell. */
  readonly shown: string;
  readonly doc: string;
}

/** One row, giving Config a `T`: its parser's value, and undefined too for a row without a default. */
export interface Setting<T> {
  readonly env: string;
  /** Reads the variable's trimmed, non-empty value; throws ConfigError naming `env`. */
  readonly parse: Parser<T>;
  /** The value when the variable is unset or empty; `undefined`: none. */
  readonly default: T;
  /** The whole numbers `wholeNumber` accepts; the docs' range. */
  readonly bounds?: Bounds;
  /** The docs' default cell where the default is not a value one sets (IAM off: `false`). */
  readonly shown?: string;
  readonly companions?: readonly Companion[];
  readonly deploy: Deploy;
  /** One line for the docs' tables. */
  readonly doc: string;
}

/** Any row. */
type Row = Setting<unknown>;

/** Each row as given, or `never` where its default is not a value its parser yields. */
type Checked<S extends Record<string, Row>> = {
  readonly [K in keyof S]: S[K] extends {
    readonly parse: Parser<infer T>;
    readonly default: infer D;
  }
    ? [D] extends [T | undefined]
      ? S[K]
      : never
    : never;
};

/** The rows with their literal types kept, so Config and the construct's props derive from them. */
export function table<const S extends Record<string, Row>>(rows: S & Checked<S>): S {
  return rows;
}

/** A timer's longest delay, ms (Node clamps a longer one to 1 ms). */
const TIMER_MAX = 2_147_483_647;

/**
 * The rows, in the order loadConfig judges them and the docs list them. Bounds are what the
 * server and Node's timers accept (a record's life in ms has at most 15 digits, a timer at most
 * 2^31 - 1 ms) and what one Lambda request carries (6 MiB).
 */
export const SETTINGS = table({
  urls: {
    env: 'EMQ_URL',
    parse: urls,
    default: ['redis://127.0.0.1:6379'],
    deploy: { by: 'cache' },
    doc: 'One `redis://` or `rediss://` (TLS) URL, or comma-separated seeds of a cluster.',
  },
  cluster: {
    env: 'EMQ_CLUSTER',
    parse: flag,
    default: false,
    deploy: { by: 'cache' },
    doc: '`true` to talk to a Valkey cluster.',
  },
  family: {
    env: 'EMQ_EXECUTOR',
    parse: familyChoice,
    default: 'auto',
    deploy: { by: 'cache' },
    doc: "The family of server calls that admit jobs: `native` (the EchoMQ module's `EMQ.ADMIT`), `function` (`FCALL` of the `emq` library), `script` (the same library through `EVALSHA`, for ElastiCache Serverless), or `auto` (native where every primary loads the module, else function).",
  },
  wire: {
    env: 'EMQ_WIRE',
    parse: wire,
    default: '1',
    deploy: { by: 'setting', faces: 'all' },
    doc: 'The wire identity this host expects in `{emq}:version` (1 to 64 printable ASCII characters); the installer writes it.',
  },
  defaultQueue: {
    env: 'EMQ_DEFAULT_QUEUE',
    parse: queue,
    default: 'default',
    deploy: { by: 'setting', faces: 'sqs' },
    doc: 'The queue of SQS records that carry no `emq-queue` attribute.',
  },
  dlqUrl: {
    env: 'EMQ_DLQ_URL',
    parse: dlqUrl,
    default: undefined,
    deploy: { by: 'queues' },
    doc: "The SQS queue that receives permanently failed SQS records. Without it they are retried until the source queue's redrive policy moves them.",
  },
  deployment: {
    env: 'EMQ_DEPLOYMENT',
    parse: text,
    default: 'local',
    deploy: { by: 'construct' },
    doc: "The deployment every metric names in its `Deployment` dimension, so that a dashboard or an alarm reads only its own: the construct sets its stack's name and its path in the stack (`JobsIngest/EchoMq`).",
  },
  maxPayloadBytes: {
    env: 'EMQ_MAX_PAYLOAD_BYTES',
    parse: wholeNumber,
    default: 262_144,
    bounds: { min: 0, max: 6 * 1024 * 1024 },
    deploy: { by: 'setting', faces: 'all' },
    doc: 'The largest payload admitted (256 KiB by default, at most 6 MiB). A larger one is refused: 413, or the DLQ for an SQS record.',
  },
  dedupeTtlMs: {
    env: 'EMQ_DEDUPE_TTL_MS',
    parse: wholeNumber,
    default: 3_600_000,
    bounds: { min: 1_000, max: 999_999_999_999_999 },
    deploy: { by: 'setting', faces: 'all' },
    doc: 'How long an idempotency key is remembered (one hour). At least the resend span, 2 × (`EMQ_CONNECT_TIMEOUT_MS` + `EMQ_COMMAND_TIMEOUT_MS`), 10 s at the defaults: a function sends a call whose reply was lost again for at most that long, and a key that expired before would let the resend write a second job, so a shorter value is refused. Keep it longer than an SQS message can come back.',
  },
  commandTimeoutMs: {
    env: 'EMQ_COMMAND_TIMEOUT_MS',
    parse: wholeNumber,
    default: 2_000,
    bounds: { min: 1, max: TIMER_MAX },
    deploy: { by: 'setting', faces: 'all' },
    doc: 'A server call slower than this counts as unavailable (retryable).',
  },
  connectTimeoutMs: {
    env: 'EMQ_CONNECT_TIMEOUT_MS',
    parse: wholeNumber,
    default: 3_000,
    bounds: { min: 1, max: TIMER_MAX },
    deploy: { by: 'setting', faces: 'all' },
    doc: 'How long opening a connection may take.',
  },
  ackReplicas: {
    env: 'EMQ_ACK_REPLICAS',
    parse: wholeNumber,
    default: 0,
    bounds: { min: 0, max: 1_000 },
    deploy: { by: 'setting', faces: 'all', default: 'per cache kind ([above](#the-cache-kinds))' },
    doc: 'Replicas that must confirm each write (`WAIT`) before it is acknowledged. Fewer confirmations answer `EMQ_UNCONFIRMED` (retryable).',
  },
  ackTimeoutMs: {
    env: 'EMQ_ACK_TIMEOUT_MS',
    parse: wholeNumber,
    default: 1_000,
    bounds: { min: 1, max: TIMER_MAX },
    deploy: { by: 'setting', faces: 'all' },
    doc: 'How long `WAIT` waits for those replicas. With `EMQ_ACK_REPLICAS` above 0 it must be less than `EMQ_COMMAND_TIMEOUT_MS`.',
  },
  callerIdMaxAgeMs: {
    env: 'EMQ_CALLER_ID_MAX_AGE_MS',
    parse: wholeNumber,
    default: 86_400_000,
    bounds: { min: 0, max: TIMER_MAX * 1_000 },
    deploy: { by: 'setting', faces: 'all' },
    doc: 'Caller-chosen job ids whose time lies further back than this (one day) are refused; `0` turns the check off. Ids more than one minute in the future are always refused.',
  },
  username: {
    env: 'EMQ_USERNAME',
    parse: text,
    default: undefined,
    deploy: { by: 'cache' },
    doc: "The ACL user. Without it: the user in the URL, else `default`. With IAM authentication: the IAM-enabled user's id.",
  },
  password: {
    env: 'EMQ_PASSWORD',
    parse: text,
    default: undefined,
    deploy: { by: 'local' },
    doc: 'The ACL password, for local use. Deployments use `EMQ_SECRET_ARN`.',
  },
  secretArn: {
    env: 'EMQ_SECRET_ARN',
    parse: text,
    default: undefined,
    deploy: { by: 'cache' },
    doc: 'A Secrets Manager secret holding `{"username","password"}`, read at cold start and again (at most once a second) after the cache refuses its password.',
  },
  tlsCa: {
    env: 'EMQ_TLS_CA',
    parse: tlsCa,
    default: undefined,
    deploy: { by: 'cache' },
    doc: "CA certificates that sign the servers' certificates, as PEM or base64 of PEM. Without it the system CAs are used.",
  },
  iam: {
    env: 'EMQ_IAM_AUTH',
    parse: iamAuth,
    default: undefined,
    shown: '`false`',
    companions: [
      {
        env: 'EMQ_IAM_CACHE_NAME',
        shown: 'none',
        doc: 'With IAM: the replication group id, Serverless cache name or MemoryDB cluster name the tokens are signed for. Required with `EMQ_IAM_AUTH=true`.',
      },
      {
        env: 'EMQ_IAM_REGION',
        shown: 'from `AWS_REGION`',
        doc: 'With IAM: the region the tokens are signed for. Lambda sets `AWS_REGION`.',
      },
      {
        env: 'EMQ_IAM_SERVERLESS',
        shown: '`false`',
        doc: 'With IAM: `true` for a Serverless cache.',
      },
      {
        env: 'EMQ_IAM_SERVICE',
        shown: '`elasticache`',
        doc: 'With IAM: the service the tokens are signed for, `elasticache` or `memorydb` (a MemoryDB cluster).',
      },
    ],
    deploy: { by: 'cache' },
    doc: '`true` to authenticate with ElastiCache or MemoryDB IAM tokens as `EMQ_USERNAME`. It cannot be combined with `EMQ_PASSWORD` or `EMQ_SECRET_ARN`.',
  },
});

type Table = typeof SETTINGS;

/** Every row's name: the fields of Config. */
export type Field = keyof Table;

/** The value one row gives Config: its parser's, or undefined where it has no default. */
export type FieldValue<K extends Field> = Table[K] extends {
  readonly parse: Parser<infer T>;
  readonly default: infer D;
}
  ? T | (undefined extends D ? undefined : never)
  : never;

/** The rows' names, in table order. */
export const FIELDS = Object.keys(SETTINGS) as Field[];

/**
 * The rows seen by name: `ROWS[field]` is a `Setting<FieldValue<typeof field>>` even for a
 * generic field, so loadConfig reads any row without a cast.
 */
export const ROWS: { readonly [K in Field]: Setting<FieldValue<K>> } = SETTINGS;

/** A row's bounds; only whole numbers have them. */
export function boundsOf(field: Field): Bounds | undefined {
  return ROWS[field].bounds;
}

/** The rows the construct exposes: their names are context keys and `settings` fields. */
export type SettingName = {
  [K in Field]: Table[K]['deploy'] extends { readonly by: 'setting' } ? K : never;
}[Field];

/** The value type of one construct setting: a number for whole-number rows, else a string. */
export type SettingValue<N extends SettingName> = FieldValue<N>;

/** A value for any subset of the construct's settings (its `settings` prop). */
export type SettingValues = { readonly [N in SettingName]?: SettingValue<N> };

/** The construct's settings, in table order. */
export const SETTING_NAMES = FIELDS.filter(
  (field): field is SettingName => SETTINGS[field].deploy.by === 'setting',
);

/** The rows with bounds: the whole numbers. */
export type BoundedField = {
  [K in Field]: Table[K] extends { readonly bounds: Bounds } ? K : never;
}[Field];

/** The construct setting whose environment variable is `env`, if any. */
export function settingOfEnv(env: string): SettingName | undefined {
  return SETTING_NAMES.find((name) => SETTINGS[name].env === env);
}

/** Every variable loadConfig reads: each row's, and their companions'. */
export const VARIABLES: readonly string[] = FIELDS.flatMap((field) => {
  const row = ROWS[field];
  return [row.env, ...(row.companions ?? []).map((companion) => companion.env)];
});
