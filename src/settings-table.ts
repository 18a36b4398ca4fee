/**
 * The tunable EMQ_* settings, one row each: the environment variable the runtime reads, the
 * CDK context key and construct setting that choose it, its default and its bounds. The
 * runtime (config.ts) and the construct (infra/) read these rows and nothing else, so a new
 * tunable is one row here plus its field in Config. Where Valkey is and how to log in
 * (EMQ_URL, EMQ_SECRET_ARN, ...) are not tunables: the cache a deployment chooses sets them.
 */

/** A whole-number setting and the range the runtime accepts. */
export interface IntegerSetting {
  readonly kind: 'integer';
  readonly env: string;
  readonly default: number;
  readonly min: number;
  readonly max: number;
  /** Which functions receive it: every one, or the SQS face only. */
  readonly faces: 'all' | 'sqs';
  readonly doc: string;
}

/** A text setting; the runtime checks its form (config.ts). */
export interface TextSetting {
  readonly kind: 'text';
  readonly env: string;
  readonly default: string;
  readonly faces: 'all' | 'sqs';
  readonly doc: string;
}

export type SettingRow = IntegerSetting | TextSetting;

/**
 * The rows, by the name that is both the context key (`-c ackTimeoutMs=500`) and the field of
 * the construct's `settings` prop. Bounds are what the server and Node's timers accept (a
 * record's life in ms has at most 15 digits, a timer at most 2^31 - 1 ms) and what one Lambda
 * request carries (6 MiB).
 */
export const SETTINGS = {
  wire: {
    kind: 'text',
    env: 'EMQ_WIRE',
    default: '1',
    faces: 'all',
    doc: 'the wire identity this host expects in {emq}:version, and the one the installer writes',
  },
  defaultQueue: {
    kind: 'text',
    env: 'EMQ_DEFAULT_QUEUE',
    default: 'default',
    faces: 'sqs',
    doc: 'the queue of SQS records without an emq-queue attribute',
  },
  maxPayloadBytes: {
    kind: 'integer',
    env: 'EMQ_MAX_PAYLOAD_BYTES',
    default: 262_144,
    min: 0,
    max: 6 * 1024 * 1024,
    faces: 'all',
    doc: 'the largest payload admitted',
  },
  dedupeTtlMs: {
    kind: 'integer',
    env: 'EMQ_DEDUPE_TTL_MS',
    default: 3_600_000,
    min: 1_000,
    max: 999_999_999_999_999,
    faces: 'all',
    doc: 'how long an idempotency key is remembered',
  },
  commandTimeoutMs: {
    kind: 'integer',
    env: 'EMQ_COMMAND_TIMEOUT_MS',
    default: 2_000,
    min: 1,
    max: 2_147_483_647,
    faces: 'all',
    doc: 'how long one call may take before it counts as unavailable',
  },
  connectTimeoutMs: {
    kind: 'integer',
    env: 'EMQ_CONNECT_TIMEOUT_MS',
    default: 3_000,
    min: 1,
    max: 2_147_483_647,
    faces: 'all',
    doc: 'how long a connection may take to open',
  },
  ackReplicas: {
    kind: 'integer',
    env: 'EMQ_ACK_REPLICAS',
    default: 0,
    min: 0,
    max: 1_000,
    faces: 'all',
    doc: 'replicas that must confirm each write (WAIT) before it is acknowledged',
  },
  ackTimeoutMs: {
    kind: 'integer',
    env: 'EMQ_ACK_TIMEOUT_MS',
    default: 1_000,
    min: 1,
    max: 2_147_483_647,
    faces: 'all',
    doc: 'how long WAIT waits for them, less than the command timeout',
  },
  callerIdMaxAgeMs: {
    kind: 'integer',
    env: 'EMQ_CALLER_ID_MAX_AGE_MS',
    default: 86_400_000,
    min: 0,
    max: 2_147_483_647_000,
    faces: 'all',
    doc: 'caller ids older than this are refused; 0 turns the check off',
  },
} as const satisfies Record<string, SettingRow>;

export type SettingName = keyof typeof SETTINGS;

/** The value type of one row: a number for integer rows, a string for text rows. */
export type SettingValue<N extends SettingName> = (typeof SETTINGS)[N] extends IntegerSetting
  ? number
  : string;

/** A value for any subset of the rows (the construct's `settings` prop). */
export type SettingValues = { readonly [N in SettingName]?: SettingValue<N> };

/** The names of the rows, in table order. */
export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

/** The integer rows' names. */
export type IntegerSettingName = {
  [N in SettingName]: (typeof SETTINGS)[N] extends IntegerSetting ? N : never;
}[SettingName];

/** The row whose environment variable is `env`, if any. */
export function settingOfEnv(env: string): SettingName | undefined {
  return SETTING_NAMES.find((name) => SETTINGS[name].env === env);
}
