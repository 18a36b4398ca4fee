import { Valkey } from 'iovalkey';
import { LOOPBACK } from './ports.js';

/** Credentials for a server started with ACL users or requirepass. */
export interface ProbeAuth {
  readonly username?: string;
  readonly password: string;
}

/**
 * Where a probe connects: a loopback TCP port; a server's unix socket (the harness's own way
 * into a server whose TCP port speaks only TLS, see test/support/targets/); or a loopback port
 * that speaks TLS, with the CA it must be signed by (a target's proxy, as clients reach it).
 */
export type ProbeTarget =
  | number
  | { readonly path: string }
  | { readonly port: number; readonly ca: Buffer };

function addressOf(target: ProbeTarget) {
  if (typeof target === 'number') return { host: LOOPBACK, port: target };
  if ('path' in target) return { path: target.path };
  return { host: LOOPBACK, port: target.port, tls: { ca: target.ca } };
}

/**
 * Runs `use` on a fresh connection that fails fast instead of reconnecting, so a poll loop
 * sees every refusal, and that is closed afterwards whatever happens.
 */
export async function withProbe<T>(
  target: ProbeTarget,
  auth: ProbeAuth | undefined,
  use: (connection: Valkey) => Promise<T>,
): Promise<T> {
  const connection = new Valkey({
    ...addressOf(target),
    username: auth?.username,
    password: auth?.password,
    lazyConnect: true,
    enableReadyCheck: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1_000,
    commandTimeout: 3_000,
  });
  // Failures reach the caller through the rejected promises; the event would only be noise.
  connection.on('error', () => {});
  try {
    await connection.connect();
    return await use(connection);
  } finally {
    connection.disconnect();
  }
}

/** Reads one `name:value` line of an INFO reply. */
export function infoField(info: string, name: string): string | undefined {
  const prefix = `${name}:`;
  const line = info.split('\r\n').find((candidate) => candidate.startsWith(prefix));
  return line?.slice(prefix.length);
}

export async function stringReply(reply: Promise<unknown>): Promise<string> {
  const value = await reply;
  if (typeof value !== 'string') throw new Error(`expected a string reply, got ${typeof value}`);
  return value;
}
