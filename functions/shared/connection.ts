/**
 * One connection per Lambda container, opened on first use and reused by every invocation.
 * A failed open is not cached: the next invocation tries again.
 */
import {
  type Config,
  type Connection,
  connect,
  connectOptionsFrom,
  loadConfig,
} from '../../src/index.js';
import { log } from './log.js';
import { readCredentials } from './secrets.js';

let config: Config | undefined;
let pending: Promise<Connection> | undefined;

/** The container's configuration, read from the environment once. */
export function containerConfig(): Config {
  config ??= loadConfig();
  return config;
}

/** The container's connection; opens it on first use. */
export function containerConnection(): Promise<Connection> {
  if (pending === undefined) {
    const opening = open(containerConfig());
    pending = opening;
    opening.catch(() => {
      if (pending === opening) pending = undefined;
    });
  }
  return pending;
}

/** Closes the container's connection and forgets the configuration (tests, shutdown). */
export async function resetContainer(): Promise<void> {
  const current = pending;
  pending = undefined;
  config = undefined;
  if (current !== undefined) await (await current.catch(() => undefined))?.close();
}

async function open(config: Config): Promise<Connection> {
  const credentials =
    config.secretArn === undefined ? undefined : await readCredentials(config.secretArn);
  return connect({
    ...connectOptionsFrom(config),
    ...(credentials === undefined ? {} : credentials),
    onWarning: (event, fields) => log('warn', event, fields),
  });
}
