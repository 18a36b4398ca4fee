/**
 * The configuration: one shape (Config), one set of defaults (DEFAULTS), every EMQ_* variable
 * read here and nowhere else, all derived from the rows of settings-table.ts. It flows
 * unchanged from loadConfig to connect(). A value the server could not take fails at load with
 * a ConfigError naming the variable, never echoing it (only the timings that refuse a
 * too-short EMQ_DEDUPE_TTL_MS are named: they hold no secret).
 */
import { ConfigError } from '../outcomes/outcomes.js';
import { RECONNECT_WINDOWS, resendSpanMs } from './resend-span.js';
import type { Bounds, Read } from './settings-parsers.js';
import {
  type BoundedField,
  boundsOf,
  FIELDS,
  type Field,
  type FieldValue,
  ROWS,
} from './settings-table.js';

export {
  FAMILY_CHOICES,
  type FamilyChoice,
  type IamAuthConfig,
} from './settings-parsers.js';

/** One field per row of the settings table, of the type its parser yields. */
export type Config = { readonly [K in Field]: FieldValue<K> };

/** Config built field by field; the one place the rows' values become a Config. */
function fieldByField(value: <K extends Field>(field: K) => FieldValue<K>): Config {
  return Object.fromEntries(FIELDS.map((field) => [field, value(field)])) as Config;
}

/** Every default, from the rows. */
export const DEFAULTS: Config = fieldByField((field) => ROWS[field].default);

/** The bounds every number must keep, from the settings table. */
export const LIMITS: Readonly<Record<BoundedField, Bounds>> = Object.fromEntries(
  FIELDS.flatMap((field) => {
    const bounds = boundsOf(field);
    return bounds === undefined ? [] : [[field, bounds]];
  }),
) as Record<BoundedField, Bounds>;

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
  const read: Read = (name) => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  // Row by row in table order, so the first bad variable is the one named.
  const config = fieldByField((field) => fieldValue(field, read));
  // WAIT runs inside the call's time budget: a longer wait would be cut off as a timeout.
  if (config.ackReplicas > 0 && config.ackTimeoutMs >= config.commandTimeoutMs) {
    throw new ConfigError(
      'EMQ_ACK_TIMEOUT_MS must be less than EMQ_COMMAND_TIMEOUT_MS when EMQ_ACK_REPLICAS is set: WAIT runs inside the command timeout.',
    );
  }
  checkRecordLife(config);
  return config;
}

/** One row's value: parsed from its variable, else its default. */
function fieldValue<K extends Field>(field: K, read: Read): FieldValue<K> {
  const row = ROWS[field];
  const value = read(row.env);
  return value === undefined ? row.default : row.parse(value, row, read);
}

/**
 * A record that expires while this code may still send the same call again lets that send
 * write a second job: the key must outlive the resend span (resend-span.ts).
 */
function checkRecordLife(config: Config): void {
  const span = resendSpanMs(config);
  if (config.dedupeTtlMs >= span) return;
  throw new ConfigError(
    `EMQ_DEDUPE_TTL_MS is ${config.dedupeTtlMs} ms, shorter than ${span} ms, the longest span over which a function may send one admission again: ${RECONNECT_WINDOWS} × (EMQ_CONNECT_TIMEOUT_MS ${config.connectTimeoutMs} + EMQ_COMMAND_TIMEOUT_MS ${config.commandTimeoutMs}). A key that expires sooner would let that send write a second job. Raise EMQ_DEDUPE_TTL_MS to at least ${span}, or lower the timeouts.`,
  );
}
