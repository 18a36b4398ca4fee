/**
 * Why a connection did not open, told to an operator: the URL (never its credentials), the
 * cause and the fix. The client library reports every refused, wrong or silent server alike
 * ("Connection is closed.", "None of startup nodes is available"), so the CLI asks the first
 * server itself, over a plain socket, whether it listens, wants a password, and whether it
 * is a cluster node.
 */
import { connect as connectTcp } from 'node:net';
import { EmqError } from '../src/outcomes/outcomes.js';
import { CliFailure, EXIT_FAILED } from './failures.js';

export interface Attempt {
  readonly urls: readonly string[];
  readonly cluster: boolean;
  readonly timeoutMs: number;
}

/** A URL as it may be shown: no user name or password. */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(an unparsable URL)';
  }
}

/** The failure to report for a connection that did not open; `error` when nothing better is known. */
export async function diagnose(error: unknown, attempt: Attempt): Promise<unknown> {
  if (!(error instanceof EmqError)) return error;
  const first = attempt.urls[0];
  if (first === undefined) return error;
  const where = attempt.urls.map(shownUrl).join(', ');
  const text = causeText(error);
  if (!attempt.cluster && /^(MOVED|ASK) /.test(text)) return clusterMismatch(where, true);
  const probe = await probeServer(first, attempt.timeoutMs);
  if (error.code !== 'EMQ_UNAVAILABLE') {
    // A connect-time check can refuse first (a cluster node read as a single server lacks the
    // fence of the slots it does not own): the cluster mode is still the fault to name.
    if (probe.kind !== 'answered' || probe.clusterEnabled === attempt.cluster) return error;
    return clusterMismatch(where, probe.clusterEnabled);
  }
  switch (probe.kind) {
    case 'refused':
      return new CliFailure(
        'EMQ_UNAVAILABLE',
        `Cannot connect to ${where}: nothing listens on that port (connection refused). Check the port in --url or EMQ_URL, and that Valkey runs (npm start prints its ports).`,
        EXIT_FAILED,
        true,
      );
    case 'unknown-host':
      return new CliFailure(
        'EMQ_CONFIG',
        `Cannot connect to ${where}: the host name does not resolve. Check the host in --url or EMQ_URL.`,
      );
    case 'silent':
      return new CliFailure(
        'EMQ_UNAVAILABLE',
        `Cannot connect to ${where}: no answer within ${attempt.timeoutMs} ms. Check the host, a firewall or security group, and rediss:// for a server that wants TLS.`,
        EXIT_FAILED,
        true,
      );
    case 'auth':
      return new CliFailure(
        'EMQ_CONFIG',
        `Cannot connect to ${where}: the server wants credentials. Set EMQ_USERNAME and EMQ_PASSWORD (or EMQ_SECRET_ARN).`,
      );
    case 'not-valkey':
      return new CliFailure(
        'EMQ_CONFIG',
        `Cannot connect to ${where}: something listens on that port but does not answer as Valkey does. Check the port in --url or EMQ_URL (npm start prints Valkey's), and use rediss:// for a server that wants TLS.`,
      );
    case 'answered':
      if (probe.clusterEnabled && !attempt.cluster) return clusterMismatch(where, true);
      if (!probe.clusterEnabled && attempt.cluster) return clusterMismatch(where, false);
      return error;
    default:
      return error;
  }
}

function clusterMismatch(where: string, isCluster: boolean): CliFailure {
  return new CliFailure(
    'EMQ_CONFIG',
    isCluster
      ? `Cannot use ${where} as a single server: it is a cluster node. Add --cluster (or EMQ_CLUSTER=true).`
      : `Cannot use ${where} as a cluster: it is a single server (cluster support disabled). Leave out --cluster (or set EMQ_CLUSTER=false).`,
  );
}

function causeText(error: Error): string {
  const cause = error.cause;
  return cause instanceof Error ? cause.message : '';
}

type Probe =
  | { readonly kind: 'refused' | 'unknown-host' | 'silent' | 'auth' | 'not-valkey' | 'skipped' }
  | { readonly kind: 'answered'; readonly clusterEnabled: boolean };

/** Sends `INFO cluster` inline over plain TCP; a TLS URL is not probed. */
function probeServer(url: string, timeoutMs: number): Promise<Probe> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return Promise.resolve({ kind: 'skipped' });
  }
  if (parsed.protocol !== 'redis:') return Promise.resolve({ kind: 'skipped' });
  return new Promise((resolve) => {
    const socket = connectTcp({ host: parsed.hostname, port: Number(parsed.port || 6379) });
    let reply = '';
    const done = (probe: Probe) => {
      socket.destroy();
      resolve(probe);
    };
    socket.setTimeout(timeoutMs, () => done({ kind: 'silent' }));
    socket.once('connect', () => socket.write('INFO cluster\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('latin1');
      if (/^-(NOAUTH|WRONGPASS|NOPERM)/.test(reply)) done({ kind: 'auth' });
      else if (/cluster_enabled:(\d)/.test(reply)) {
        done({ kind: 'answered', clusterEnabled: /cluster_enabled:1/.test(reply) });
      } else if (reply.startsWith('-')) done({ kind: 'skipped' });
      // INFO's answer is a bulk string ($<length>); an error starts with `-`.
      else if (!reply.startsWith('$')) done({ kind: 'not-valkey' });
    });
    // A server that answers and hangs up, or hangs up at once, settles the probe too: the
    // timeout above only runs while the socket is open.
    socket.once('close', () => done({ kind: 'not-valkey' }));
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED') done({ kind: 'refused' });
      else if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN')
        done({ kind: 'unknown-host' });
      else done({ kind: 'skipped' });
    });
  });
}
