/**
 * The connector: one iovalkey client (standalone or cluster), the executor chosen for it,
 * and every primary checked before the connection is handed out: wire identity, function
 * library and memory policy (SPEC §6, §11), one pipeline per primary.
 */
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import { Cluster, type ClusterOptions, type RedisOptions, Valkey } from 'iovalkey';
import { DEFAULTS as CONFIG, type Config, type ExecutorChoice } from './config.js';
import type { Executor, ExecutorKind } from './executors/executor.js';
import { functionExecutor } from './executors/function.js';
import { nativeExecutor } from './executors/native.js';
import { mintJobId } from './ids.js';
import { checkNodes, type FenceReading, readNodes } from './install.js';
import type { AdmissionTarget } from './jobs.js';
import { classifyFailure } from './outcome-rules.js';
import { ConfigError, UnavailableError } from './outcomes.js';

export interface ConnectOptions {
  /** Server URLs: one, or several cluster seeds. `rediss://` turns TLS on. Default `['redis://127.0.0.1:6379']`. */
  readonly urls?: readonly string[];
  /** Talk to a Valkey cluster. Default `false`. */
  readonly cluster?: boolean;
  /** `native`, `function`, or `auto`: native where every primary loads the module. Default `auto`. */
  readonly executor?: ExecutorChoice;
  /** The wire identity this host expects in `{emq}:version`. Default `'1'`. */
  readonly wire?: string;
  /** ACL user. Default: the user in the URL, else `default`. */
  readonly username?: string | undefined;
  /** ACL password. Default: the password in the URL, else none. */
  readonly password?: string | undefined;
  /** TLS settings beyond what `rediss://` implies, such as a private CA. Default: none (system CAs). */
  readonly tls?: Pick<TlsOptions, 'ca' | 'servername' | 'cert' | 'key'> | undefined;
  /** A command slower than this fails as unavailable. Default 2000 ms. */
  readonly commandTimeoutMs?: number;
  /** Opening the connection may take this long. Default 3000 ms. */
  readonly connectTimeoutMs?: number;
  /** How long an idempotency key is remembered. Default 3600000 ms. */
  readonly dedupeTtlMs?: number;
  /** The largest payload admitted. Default 262144 bytes. */
  readonly maxPayloadBytes?: number;
  /** Replicas that must confirm every write before it is acknowledged (WAIT). Default `0`. */
  readonly ackReplicas?: number;
  /** How long WAIT may wait for them. Default 1000 ms. */
  readonly ackTimeoutMs?: number;
  /** Serve on a `volatile-*` memory policy, with a warning at every connect. Default `false`. */
  readonly allowVolatileEviction?: boolean;
  /**
   * Check identity, library and memory policy before serving. Default `true`; off only for
   * the tools that install them.
   */
  readonly checkFence?: boolean;
  /** Mints ids for requests without one. Default: this process's monotonic minter (SPEC §2). */
  readonly mintId?: () => string;
  /** Told about what an operator should see (an evicting memory policy allowed). Default: ignore. */
  readonly onWarning?: (event: string, fields: Readonly<Record<string, string>>) => void;
}

/** A connected client with its executor; the argument of every function in jobs.ts and install.ts. */
export interface Connection extends AdmissionTarget {
  readonly client: Valkey | Cluster;
  readonly executor: Executor;
  readonly wire: string;
  /** Told about what an operator should see. */
  readonly onWarning: (event: string, fields: Readonly<Record<string, string>>) => void;
  /** The primaries as they are now: the client itself, or the cluster's masters. */
  primaries(): Valkey[];
  close(): Promise<void>;
}

type Resolved = Required<
  Omit<ConnectOptions, 'username' | 'password' | 'tls' | 'onWarning' | 'mintId'>
> &
  ConnectOptions;

const DEFAULTS: Resolved = {
  urls: [CONFIG.url],
  cluster: false,
  executor: CONFIG.executor,
  wire: CONFIG.wire,
  commandTimeoutMs: CONFIG.commandTimeoutMs,
  connectTimeoutMs: CONFIG.connectTimeoutMs,
  dedupeTtlMs: CONFIG.dedupeTtlMs,
  maxPayloadBytes: CONFIG.maxPayloadBytes,
  ackReplicas: CONFIG.ackReplicas,
  ackTimeoutMs: CONFIG.ackTimeoutMs,
  allowVolatileEviction: CONFIG.allowVolatileEviction,
  checkFence: true,
};

/** The connect options a Config describes (credentials from a secret come on top). */
export function connectOptionsFrom(config: Config): ConnectOptions {
  return {
    urls: config.urls,
    cluster: config.cluster,
    executor: config.executor,
    wire: config.wire,
    username: config.username,
    password: config.password,
    commandTimeoutMs: config.commandTimeoutMs,
    connectTimeoutMs: config.connectTimeoutMs,
    dedupeTtlMs: config.dedupeTtlMs,
    maxPayloadBytes: config.maxPayloadBytes,
    ackReplicas: config.ackReplicas,
    ackTimeoutMs: config.ackTimeoutMs,
    allowVolatileEviction: config.allowVolatileEviction,
    ...(config.tlsCa === undefined ? {} : { tls: { ca: config.tlsCa } }),
  };
}

/**
 * Opens a connection, reads every primary (one pipeline each), chooses the executor and
 * checks identity, library and memory policy. Throws a retryable UnavailableError or
 * FenceError when the servers cannot serve now, and a ConfigError for a setup an operator
 * must change (`native` asked of a server without the module, an evicting memory policy).
 */
export async function connect(options: ConnectOptions = {}): Promise<Connection> {
  const o: Resolved = { ...DEFAULTS, ...withoutUndefined(options) };
  const client = o.cluster ? clusterClient(o) : standaloneClient(o);
  const onWarning = o.onWarning ?? (() => {});
  // Without a listener iovalkey prints socket errors, addresses included, to stderr; commands
  // report failures themselves, so only the error's code reaches the operator.
  client.on('error', (error: unknown) => {
    const code = (error as { code?: unknown }).code;
    onWarning('connection-error', { code: typeof code === 'string' ? code : 'unknown' });
  });
  try {
    await openWithin(client, o.connectTimeoutMs);
    const primaries = (): Valkey[] =>
      client instanceof Cluster ? client.nodes('master') : [client];
    const readings = await readNodes({ client, wire: o.wire, primaries });
    const executor = chooseExecutor(readings, o.executor);
    if (o.checkFence) {
      checkNodes(readings, o.wire, {
        allowVolatileEviction: o.allowVolatileEviction,
        warn: onWarning,
      });
    }
    return {
      client,
      executor,
      wire: o.wire,
      dedupeTtlMs: o.dedupeTtlMs,
      maxPayloadBytes: o.maxPayloadBytes,
      ackReplicas: o.ackReplicas,
      ackTimeoutMs: o.ackTimeoutMs,
      mintId: o.mintId ?? mintJobId,
      onWarning,
      primaries,
      nodeOf:
        client instanceof Cluster
          ? (slot) => client.slots[slot]?.join(';') ?? `slot:${slot}`
          : () => '',
      close: () => close(client),
    };
  } catch (error) {
    client.disconnect();
    throw classifyFailure(error);
  }
}

/**
 * client.connect(), bounded by the connect timeout (SPEC §7: a retryable answer, never a hang).
 * iovalkey 0.4.0's Cluster#connect() never settles its promise when the ready check (CLUSTER
 * INFO) fails after the slot map was read: a command timeout while a node's socket is still
 * opening, or cluster_state:fail. It disconnects, reconnects on its own and resolves only the
 * promises of its later attempts. The caller's catch disconnects, which ends those attempts.
 */
async function openWithin(client: Valkey | Cluster, ms: number): Promise<void> {
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
    await Promise.race([client.connect(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function withoutUndefined(options: ConnectOptions): ConnectOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

function nodeOptions(o: Resolved, url: URL): RedisOptions {
  const tls = url.protocol === 'rediss:' ? { ...o.tls } : undefined;
  return {
    username: o.username ?? (decodeURIComponent(url.username) || undefined),
    password: o.password ?? (decodeURIComponent(url.password) || undefined),
    tls,
    connectTimeout: o.connectTimeoutMs,
    commandTimeout: o.commandTimeoutMs,
    lazyConnect: true,
    // A Lambda should answer 503 fast rather than queue work behind a dead socket.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    // A write whose reply was lost may have run: resending it after a reconnect could run it
    // twice. The caller hears "unavailable" and retries with the same key instead (SPEC §5).
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times) => Math.min(50 * 2 ** times, 1_000),
  };
}

function parse(url: string): URL {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'redis:' || parsed.protocol === 'rediss:') return parsed;
  } catch {}
  throw new ConfigError(
    'A server URL is invalid: expected redis://host:port or rediss://host:port.',
  );
}

function standaloneClient(o: Resolved): Valkey {
  const [first, ...rest] = o.urls;
  if (first === undefined || rest.length > 0) {
    throw new ConfigError(
      'A standalone connection takes exactly one URL; set cluster for several seeds.',
    );
  }
  const url = parse(first);
  const db = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0;
  return new Valkey({
    ...nodeOptions(o, url),
    host: url.hostname,
    port: Number(url.port || 6379),
    db,
  });
}

function clusterClient(o: Resolved): Cluster {
  const urls = o.urls.map(parse);
  const [first] = urls;
  if (first === undefined)
    throw new ConfigError('A cluster connection needs at least one seed URL.');
  const options: ClusterOptions = {
    redisOptions: nodeOptions(o, first),
    lazyConnect: true,
    enableOfflineQueue: false,
    scaleReads: 'master',
    // A command bound for a dead primary (or answered CLUSTERDOWN / TRYAGAIN) is retried every
    // RETRY_DELAY_MS until maxRedirections runs out; sized so that riding out a failover never
    // keeps the caller longer than the command timeout, after which it hears "retry".
    maxRedirections: redirectionsWithin(o.commandTimeoutMs),
    retryDelayOnFailover: RETRY_DELAY_MS,
    retryDelayOnClusterDown: RETRY_DELAY_MS,
    retryDelayOnTryAgain: RETRY_DELAY_MS,
    slotsRefreshTimeout: o.connectTimeoutMs,
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

/**
 * Native where every primary knows EMQ.ENQUEUE (admit natively too where every primary
 * knows EMQ.ADMIT); else the function family. `native` without the module is a setup fault.
 */
function chooseExecutor(readings: readonly FenceReading[], choice: ExecutorChoice): Executor {
  if (choice === 'function') return functionExecutor;
  const missing = readings.filter((reading) => !reading.commands.enqueue).length;
  if (missing === 0) {
    return nativeExecutor({ admitCommand: readings.every((reading) => reading.commands.admit) });
  }
  if (choice === 'auto') return functionExecutor;
  throw new ConfigError(
    `EMQ_EXECUTOR is native but ${missing} of ${readings.length} primaries do not load the EchoMQ module; load it or use EMQ_EXECUTOR=function.`,
    {
      code: 'EMQ_NO_MODULE',
      publicMessage: 'A Valkey primary does not load the EchoMQ module; an operator must act.',
    },
  );
}

async function close(client: Valkey | Cluster): Promise<void> {
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}

export type { ExecutorKind };
