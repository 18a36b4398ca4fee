/**
 * The iovalkey clients the connector opens: options from the configuration as it is, and the
 * timeouts and retries that keep a Lambda's answer within its command timeout (docs/reliability.md,
 * "Outcomes"). Written against iovalkey 0.4.0 (openWithin works around its Cluster#connect()).
 */
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import { Cluster, type ClusterOptions, type RedisOptions, Valkey } from 'iovalkey';
import { ConfigError, UnavailableError } from '../outcomes/outcomes.js';
import type { Config } from '../settings/config.js';
import { authenticatingConnector, CredentialSource } from './authenticating-connector.js';
import { attachCredentials } from './credentials.js';
import { configCredentials } from './url-credentials.js';

/** TLS settings beyond the configuration's CA (a client certificate, a server name). */
export type ClientTls = Pick<TlsOptions, 'ca' | 'servername' | 'cert' | 'key'>;

/**
 * A client for the configuration, not yet connected (lazyConnect). Every socket it opens (each
 * cluster node's, each slot-map read's, each reconnect) authenticates before anything else is
 * sent, with the credentials its source holds at that connect (authenticating-connector.ts).
 */
export function newClient(
  config: Config,
  tls: ClientTls | undefined,
  renewableCredentials = false,
): Valkey | Cluster {
  const source = new CredentialSource(configCredentials(config), renewableCredentials);
  const client = config.cluster
    ? clusterClient(config, tls, source)
    : standaloneClient(config, tls, source);
  attachCredentials(client, source);
  return client;
}

/**
 * client.connect(), bounded by the connect timeout (docs/reliability.md, "Outcomes": a retryable
 * answer, never a hang). iovalkey 0.4.0's Cluster#connect() never settles its promise when the
 * ready check (CLUSTER INFO) fails after the slot map was read: a command timeout while a node's
 * socket is still opening, or cluster_state:fail. It disconnects, reconnects on its own and
 * resolves only the promises of its later attempts. The caller's catch disconnects, which ends
 * those attempts.
 */
export async function openWithin(
  client: Valkey | Cluster,
  ms: number,
  refused: Promise<never>,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new UnavailableError(`Valkey did not accept the connection within ${ms} ms; retry.`),
        ),
      ms,
    );
  });
  try {
    await Promise.race([client.connect(), deadline, refused]);
  } finally {
    clearTimeout(timer);
  }
}

function nodeOptions(
  config: Config,
  url: URL,
  tls: ClientTls | undefined,
  source: CredentialSource,
): RedisOptions {
  const secure = url.protocol === 'rediss:';
  return {
    // No username or password for iovalkey: it would send an AUTH of its own, with the queued
    // commands right behind it. The connector authenticates each socket first.
    Connector: authenticatingConnector(source),
    tls: secure
      ? { ...(config.tlsCa === undefined ? {} : { ca: config.tlsCa }), ...tls }
      : undefined,
    connectTimeout: config.connectTimeoutMs,
    commandTimeout: config.commandTimeoutMs,
    lazyConnect: true,
    // A Lambda should answer 503 fast rather than queue work behind a dead socket.
    enableOfflineQueue: false,
    // Every call in flight fails at once when its connection closes, and the admission sends
    // it again (keyed) once the connection is back (healing.ts). iovalkey 0.4.0 fails them
    // only on the close that reaches this count of reconnects: with 1, the calls of the first
    // close were kept aside and, resending being off, dropped at the reconnect unanswered, so
    // each waited out the whole command timeout. A cluster's node clients (no retry strategy)
    // fail them on every close anyway.
    maxRetriesPerRequest: 0,
    // A write whose reply was lost may have run: iovalkey must not resend it behind our back.
    // The admission sends it again itself, under its key (docs/wire.md, "Idempotency records"), and
    // knows it did.
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times) => Math.min(50 * 2 ** times, 1_000),
    keepAlive: KEEPALIVE_MS,
    // No INFO per connection: the connector's own reading (INFO memory) is the check, and a
    // server still loading answers LOADING, which an admission rides out (healing.ts).
    enableReadyCheck: false,
  };
}

/**
 * TCP keepalive after this long idle: the kernel probes while the process is frozen, so a
 * connection whose peer vanished (a lost host, a NAT that forgot the flow) is found closed at
 * the thaw instead of swallowing the first command. Below the idle timeouts of NAT gateways
 * and load balancers (350 s and more).
 */
const KEEPALIVE_MS = 30_000;

/**
 * A warm cluster client reads the slot map this often while it runs. Timers do not run while a
 * container is frozen: the first use after a gap reads it too (healing.ts). Every read is a
 * connection of its own (CLUSTER SLOTS), so this is sized for thousands of containers, not for
 * speed: a moved slot or a promoted replica is found at once by the MOVED or timeout it causes.
 */
const TOPOLOGY_REFRESH_MS = 60_000;

function parse(url: string): URL {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'redis:' || parsed.protocol === 'rediss:') return parsed;
  } catch {}
  throw new ConfigError('EMQ_URL is invalid: expected redis://host:port or rediss://host:port.');
}

function standaloneClient(
  config: Config,
  tls: ClientTls | undefined,
  source: CredentialSource,
): Valkey {
  const [first, ...rest] = config.urls;
  if (first === undefined || rest.length > 0) {
    throw new ConfigError(
      'A standalone connection takes exactly one URL in EMQ_URL; set EMQ_CLUSTER=true for several seeds.',
    );
  }
  const url = parse(first);
  const db = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0;
  return new Valkey({
    ...nodeOptions(config, url, tls, source),
    host: url.hostname,
    port: Number(url.port || 6379),
    db,
  });
}

function clusterClient(
  config: Config,
  tls: ClientTls | undefined,
  source: CredentialSource,
): Cluster {
  const urls = config.urls.map(parse);
  const [first] = urls;
  if (first === undefined) throw new ConfigError('EMQ_URL needs at least one cluster seed.');
  const options: ClusterOptions = {
    redisOptions: nodeOptions(config, first, tls, source),
    lazyConnect: true,
    enableOfflineQueue: false,
    // No CLUSTER INFO at connect: the slot map read (CLUSTER SLOTS) is the one topology read,
    // and a cluster that is down answers CLUSTERDOWN, which is retried (unavailable).
    enableReadyCheck: false,
    scaleReads: 'master',
    // A command bound for a dead primary (or answered CLUSTERDOWN / TRYAGAIN) is retried every
    // RETRY_DELAY_MS until maxRedirections runs out; sized so that riding out a failover never
    // keeps the caller longer than the command timeout, after which it hears "retry".
    maxRedirections: redirectionsWithin(config.commandTimeoutMs),
    retryDelayOnFailover: RETRY_DELAY_MS,
    retryDelayOnClusterDown: RETRY_DELAY_MS,
    retryDelayOnTryAgain: RETRY_DELAY_MS,
    slotsRefreshTimeout: config.connectTimeoutMs,
    slotsRefreshInterval: TOPOLOGY_REFRESH_MS,
    // TLS certificates name the configuration endpoint; keep the names nodes announce.
    ...(first.protocol === 'rediss:'
      ? { dnsLookup: (address, callback) => callback(null, address) }
      : {}),
  };
  return new Cluster(
    urls.map((url) => ({ host: url.hostname, port: Number(url.port || 6379) })),
    options,
  );
}

/** Between cluster retries of one command (failover, CLUSTERDOWN, TRYAGAIN). */
const RETRY_DELAY_MS = 100;

/** As many cluster retries as fit in the command timeout: at least 3 (MOVED, ASK, run), at most 16. */
function redirectionsWithin(commandTimeoutMs: number): number {
  return Math.min(16, Math.max(3, Math.floor(commandTimeoutMs / RETRY_DELAY_MS)));
}

/** QUIT, or a disconnect where QUIT cannot be sent. */
export async function closeClient(client: Valkey | Cluster): Promise<void> {
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
