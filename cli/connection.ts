/**
 * Where the CLI connects: `--url` and `--cluster` on top of the same EMQ_* variables the
 * functions read, so an operator's shell and a function's environment mean the same thing.
 */
import type { Command } from 'commander';
import { openCredentials } from '../functions/shared/open-credentials.js';
import { type Connection, connect } from '../src/connection/connector.js';
import { ConfigError } from '../src/outcomes/outcomes.js';
import { type Config, DEFAULTS, type Env, loadConfig } from '../src/settings/config.js';
import { diagnose } from './diagnose.js';
import { usageFailure } from './failures.js';
import type { Io } from './io.js';

/** The connection flags of every command that talks to Valkey. */
export interface ConnectionFlags {
  /** Overrides EMQ_URL: one URL, or comma-separated cluster seeds. Default: EMQ_URL, else redis://127.0.0.1:6379. */
  readonly url?: string | undefined;
  /** Overrides EMQ_CLUSTER with `true`. Default: EMQ_CLUSTER, else false. */
  readonly cluster?: boolean | undefined;
  /** Overrides EMQ_WIRE (only the fence commands offer it). Default: EMQ_WIRE, else `1`. */
  readonly wire?: string | undefined;
}

/** Adds `--url`, `--cluster` and `--json` to a command. */
export function withConnectionFlags(command: Command): Command {
  return command
    .option(
      '--url <urls>',
      `Valkey URL, or comma-separated cluster seeds (overrides EMQ_URL; default ${DEFAULTS.urls.join(',')})`,
    )
    .option('--cluster', 'talk to a Valkey cluster (overrides EMQ_CLUSTER; default false)')
    .option('--json', 'print one JSON line');
}

/**
 * The flags that override an EMQ_* variable: the variable each one overrides, and how its
 * value reads as that variable's (a switch sets `true`).
 */
export const FLAG_OVERRIDES = [
  { key: 'url', flag: '--url', variable: 'EMQ_URL', example: DEFAULTS.urls.join(',') },
  { key: 'cluster', flag: '--cluster', variable: 'EMQ_CLUSTER', example: undefined },
  { key: 'wire', flag: '--wire', variable: 'EMQ_WIRE', example: DEFAULTS.wire },
] as const satisfies readonly {
  key: keyof ConnectionFlags;
  flag: string;
  variable: string;
  example: string | undefined;
}[];

function flagValue(value: string | boolean | undefined): string | undefined {
  if (value === undefined || value === false) return undefined;
  return value === true ? 'true' : value;
}

/**
 * The configuration the flags and the environment describe. A bad value is usage (exit 2),
 * named as the user gave it: a flag's value is checked on its own first, so `--url http://x`
 * is reported as `--url`, not as the EMQ_URL it overrides.
 */
export function configFrom(env: Env, flags: ConnectionFlags): Config {
  const overrides: Record<string, string> = {};
  for (const { key, flag, variable, example } of FLAG_OVERRIDES) {
    const value = flagValue(flags[key]);
    if (value === undefined) continue;
    const refusal = refusalOf({ [variable]: value });
    if (refusal !== undefined) {
      // The core's "<VARIABLE> is invalid: expected ..." with the flag's name in front.
      const expected = refusal.message.replace(`${variable} is invalid: `, '').replace(/\.$/, '');
      const sample = example === undefined ? '' : `, e.g. ${flag} ${example}`;
      throw usageFailure(
        `${flag} is invalid: ${expected}${sample} (${flag} overrides ${variable}).`,
        refusal.code,
      );
    }
    overrides[variable] = value;
  }
  let config: Config;
  try {
    config = loadConfig({ ...env, ...overrides });
  } catch (error) {
    // What is left is a variable of the environment, which the core's message names.
    if (error instanceof ConfigError) throw usageFailure(error.message, error.code);
    throw error;
  }
  // The connector refuses this too, but only once it is asked to connect: it is usage.
  if (!config.cluster && config.urls.length > 1) {
    const named = flags.url === undefined ? 'EMQ_URL' : '--url';
    throw usageFailure(
      `${named} holds ${config.urls.length} URLs, which are cluster seeds: add --cluster (or EMQ_CLUSTER=true), or give one URL.`,
      'EMQ_CONFIG',
    );
  }
  return config;
}

/** The ConfigError loadConfig throws for `env`, if any; it never echoes a value. */
function refusalOf(env: Env): ConfigError | undefined {
  try {
    loadConfig(env);
    return undefined;
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
}

export interface OpenOptions {
  /** Check the fence before serving; off for the fence commands themselves. Default true. */
  readonly checkFence?: boolean;
}

/** Connects, runs `work`, and always closes the connection. */
export async function withConnection<T>(
  io: Io,
  flags: ConnectionFlags,
  options: OpenOptions,
  work: (connection: Connection) => Promise<T>,
): Promise<T> {
  const config = configFrom(io.env, flags);
  const credentials = await openCredentials(config);
  const connection = await connect({
    ...config,
    ...credentials,
    checkFence: options.checkFence ?? true,
    onWarning: (event, fields) => {
      // Socket errors already surface as the command's own failure.
      if (event === 'connection-error') return;
      const detail = Object.entries(fields).map(([name, value]) => `${name}=${value}`);
      io.err(`emq: warning: ${event} ${detail.join(' ')}\n`);
    },
  }).catch(async (error: unknown) => {
    throw await diagnose(error, {
      urls: config.urls,
      cluster: config.cluster,
      timeoutMs: config.connectTimeoutMs,
    });
  });
  try {
    return await work(connection);
  } finally {
    await connection.close();
  }
}

/**
 * Reading needs no fence: the fence guards writes, and an operator diagnosing a fence fault
 * still wants to see the queue.
 */
export const READ_ONLY: OpenOptions = { checkFence: false };
