/**
 * Where the CLI connects: `--url` and `--cluster` on top of the same EMQ_* variables the
 * functions read, so an operator's shell and a function's environment mean the same thing.
 */
import type { Command } from 'commander';
import { openCredentials } from '../functions/shared/open-credentials.js';
import { type Config, type Connection, connect, type Env, loadConfig } from '../src/index.js';
import { diagnose } from './diagnose.js';
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
    .option('--url <urls>', 'Valkey URL, or comma-separated cluster seeds (default: $EMQ_URL)')
    .option('--cluster', 'talk to a Valkey cluster (default: $EMQ_CLUSTER)')
    .option('--json', 'print one JSON line');
}

/** The configuration the flags and the environment describe. Throws ConfigError on a bad value. */
export function configFrom(env: Env, flags: ConnectionFlags): Config {
  return loadConfig({
    ...env,
    ...(flags.url === undefined ? {} : { EMQ_URL: flags.url }),
    ...(flags.cluster === true ? { EMQ_CLUSTER: 'true' } : {}),
    ...(flags.wire === undefined ? {} : { EMQ_WIRE: flags.wire }),
  });
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
