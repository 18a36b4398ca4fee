/**
 * The EMQ_* settings the CLI's help documents. Every value and default shown comes from the
 * core: defaults from DEFAULTS, and the values of a setting with a closed set from what
 * loadConfig itself accepts, so the help says what the code checks (a unit test,
 * cli-settings.test.ts, fails when the two drift).
 */
import { JOB_ID_LENGTH, JOB_ID_PREFIX } from '../src/keyspace/ids.js';
import {
  CALLER_ID_MAX_FUTURE_MS,
  MAX_IDEMPOTENCY_KEY_BYTES,
  MAX_QUEUE_BYTES,
} from '../src/keyspace/keyspace.js';
import { ConfigError } from '../src/outcomes/outcomes.js';
import { DEFAULTS, loadConfig } from '../src/settings/config.js';
import type { FamilyChoice } from '../src/settings/settings-parsers.js';

/**
 * What each choice of EMQ_EXECUTOR (the setting that picks the family) is. The help lists
 * only the families loadConfig accepts, so a family described here but not in the core is
 * never offered. The type makes a family the core adds without a line here a compile error.
 */
export const FAMILY_MEANINGS: Readonly<Record<FamilyChoice, string>> = {
  auto: 'the first of the families below that every primary runs',
  native: 'EMQ.ENQUEUE and EMQ.ADMIT of the EchoMQ module',
  function: 'FCALL of the emq function library',
  script: 'EVALSHA of the same library, where FUNCTION is not offered (Serverless)',
};

/** True when loadConfig accepts `value` for `variable` (the rest left at their defaults). */
export function accepts(variable: string, value: string): boolean {
  try {
    loadConfig({ [variable]: value });
    return true;
  } catch (error) {
    if (error instanceof ConfigError) return false;
    throw error;
  }
}

/** The EMQ_EXECUTOR choices the core accepts, in the order above. */
export function familyChoices(): string[] {
  return Object.keys(FAMILY_MEANINGS).filter((name) => accepts('EMQ_EXECUTOR', name));
}

function meaningOf(name: string): string {
  return Object.entries(FAMILY_MEANINGS).find(([family]) => family === name)?.[1] ?? '';
}

/** The settings block of `emq --help`. */
export function settingsHelp(): string {
  const choices = familyChoices();
  const families = choices
    .map((name) => `                   ${name.padEnd(9)}${meaningOf(name)}`)
    .join('\n');
  return `
Connection: --url, --cluster, or the EMQ_* variables the functions read:
  EMQ_URL          redis:// or rediss:// URL; comma-separated seeds with EMQ_CLUSTER
                   (default ${DEFAULTS.urls.join(',')})
  EMQ_CLUSTER      true for a Valkey cluster, or false (default false)
  EMQ_WIRE         the wire identity in {emq}:version (default ${DEFAULTS.wire})
  EMQ_EXECUTOR     ${choices.join(', ')} (default ${DEFAULTS.family}):
${families}
  EMQ_USERNAME, EMQ_PASSWORD, EMQ_SECRET_ARN   credentials (EMQ_IAM_AUTH for IAM tokens)
A flag given on the command line wins over its variable.`;
}

/** The shapes the CLI's argument help describes, from the constants the core checks them by. */
export const RULES = {
  queue: `1 to ${MAX_QUEUE_BYTES} of A-Z a-z 0-9 . _ - (not . or ..)`,
  jobId: `${JOB_ID_PREFIX} + ${JOB_ID_LENGTH - JOB_ID_PREFIX.length} base62 characters; mint one with \`emq id\``,
  idempotencyKey: `1 to ${MAX_IDEMPOTENCY_KEY_BYTES} printable ASCII characters, no spaces`,
  callerIdAge: `EMQ_CALLER_ID_MAX_AGE_MS, default ${duration(DEFAULTS.callerIdMaxAgeMs)}`,
  callerIdFuture: duration(CALLER_ID_MAX_FUTURE_MS),
} as const;

/** A whole number of days, hours, minutes or seconds, in words; else milliseconds. */
export function duration(ms: number): string {
  for (const [unit, size] of [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
    ['second', 1_000],
  ] as const) {
    if (ms >= size && ms % size === 0) {
      const count = ms / size;
      return count === 1 ? `one ${unit}` : `${count} ${unit}s`;
    }
  }
  return `${ms} ms`;
}
