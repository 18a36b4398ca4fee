/**
 * The connector: one iovalkey client (standalone or cluster) built from the configuration as
 * it is (one shape, docs/reliability.md "Outcomes"), the family chosen for it, and every primary
 * checked before the connection is handed out: wire identity, library and memory policy
 * (docs/wire.md, "The fence"; docs/reliability.md, "Acknowledgements"). A failure to open says what
 * an operator must change (credentials, cluster mode) where that is known.
 */
import { Cluster, type Valkey } from 'iovalkey';
import type { Family } from '../families/family.js';
import { functionFamily } from '../families/function.js';
import { SCRIPT_SOURCE } from '../families/library.js';
import { nativeFamily } from '../families/native.js';
import { scriptFamily } from '../families/script.js';
import * as ids from '../keyspace/ids.js';
import { classifyFailure } from '../outcomes/outcome-rules.js';
import { ConfigError, type EmqError } from '../outcomes/outcomes.js';
import { type Config, configure } from '../settings/config.js';
import { CREDENTIALS_REFUSED, isRefusedLogin } from './authenticating-connector.js';
import { type ClientTls, closeClient, newClient, openWithin } from './clients.js';
import { checkNodes, loadScripts } from './fence.js';
import { type FenceReading, readNodes } from './node-reading.js';
import { nodeClientOf, nodeNameOf } from './transport.js';
import { configCredentials } from './url-credentials.js';

export type Warn = (event: string, fields: Readonly<Record<string, string>>) => void;

/** What a process adds to the configuration when it connects; none of it is a setting. */
export interface RuntimeOptions {
  /**
   * Check identity, library and memory policy before serving. Default `true`; off only for
   * the tools that install or inspect them.
   */
  readonly checkFence?: boolean;
  /**
   * Mints ids for requests without one. Default: this process's monotonic minter (docs/wire.md,
   * "Job ids").
   */
  readonly mintId?: () => string;
  /** Told about what an operator should see (a connection error's code, an unknown policy). Default: ignore. */
  readonly onWarning?: Warn;
  /** TLS settings beyond the configuration's CA (a client certificate, a server name). Default: none. */
  readonly tls?: ClientTls | undefined;
  /**
   * The credentials come from a store that may hold newer ones (a secret being rotated): a
   * login refused on a reconnect or a cluster node's connect fails its calls as retryable
   * (EMQ_UNAVAILABLE) rather than as configuration, while the caller reads the store again
   * and opens a new connection (loginRefused). Default `false`.
   */
  readonly renewableCredentials?: boolean;
}

/** The configuration (any field left out takes its default) and the runtime options. */
export type ConnectOptions = Partial<Config> & RuntimeOptions;

/** A connected client with its family: the argument of every core function. */
export interface Connection {
  readonly config: Config;
  readonly client: Valkey | Cluster;
  readonly family: Family;
  readonly mintId: () => string;
  readonly onWarning: Warn;
  /** The primaries as they are now: the client itself, or the cluster's masters. */
  primaries(): Valkey[];
  /** A name for the node that serves `slot`: commands for one name share one write. */
  nodeOf(slot: number): string;
  /** Loads the script family's script on the node that serves `slot` (after NOSCRIPT). */
  loadScript(slot: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens a connection, reads every primary, chooses the family and checks identity, library
 * and memory policy. Throws a retryable UnavailableError or FenceError when the servers cannot
 * serve now, and a ConfigError for a setup an operator must change (credentials refused, the
 * cluster mode wrong, `native` asked of a server without the module, an evicting policy).
 */
export async function connect(options: ConnectOptions = {}): Promise<Connection> {
  const {
    checkFence = true,
    mintId = ids.mintId,
    onWarning = () => {},
    tls,
    renewableCredentials = false,
    ...fields
  } = options;
  const config = configure(fields);
  const client = newClient(config, tls, renewableCredentials);
  // Every error event is handled: without a listener iovalkey prints it, stack and address, to
  // stderr. Commands report their own failures; the operator is told the code, and a failure
  // to open is explained by the last one seen.
  let lastError: unknown;
  let refuse: (error: unknown) => void = () => {};
  const refused = new Promise<never>((_, reject) => {
    refuse = reject;
  });
  refused.catch(() => {});
  const seen = (event: unknown) => {
    // A cluster reports a node's refusal inside "Failed to refresh slots cache".
    const error = (event as { lastNodeError?: unknown } | undefined)?.lastNodeError ?? event;
    lastError = error;
    onWarning('connection-error', { code: errorCodeOf(error) });
    // What no retry can mend ends the open at once, rather than at the connect timeout.
    const text = error instanceof Error ? error.message : '';
    if (isRefusedLogin(error) || CREDENTIALS_REFUSED.test(text) || MENDLESS.test(text)) {
      refuse(error);
    }
  };
  client.on('error', seen);
  if (client instanceof Cluster) {
    client.on('node error', seen);
    // The pool's own listener goes when it drops a node; a late error of that node's client
    // would then be printed by iovalkey. Ours stays for the client's life.
    client.on('+node', (node: Valkey) => node.on('error', seen));
  }
  try {
    await openWithin(client, config.connectTimeoutMs, refused);
    const primaries = (): Valkey[] =>
      client instanceof Cluster ? client.nodes('master') : [client];
    const target = { client, config, primaries };
    // A cold start reads no node ids: they only name a node that is refused.
    let readings = await readNodes(target, { nodeIds: false });
    const family = chooseFamily(readings, config);
    // SCRIPT EXISTS of the script's own SHA-1 proves its version: the node is read again only
    // where the script had to be loaded.
    if (family.name === 'script' && checkFence && (await loadScripts(target, readings)) > 0) {
      readings = await readNodes(target, { nodeIds: false });
    }
    if (checkFence) {
      try {
        checkNodes(readings, config.wire, onWarning);
      } catch (error) {
        // Read again, with ids, so that the refusal names the node (and throw the first if
        // the second reading passes: the refusal stands for this open).
        checkNodes(await readNodes(target), config.wire, () => {});
        throw error;
      }
    }
    return {
      config,
      client,
      family,
      mintId,
      onWarning,
      primaries,
      nodeOf: (slot) => nodeNameOf(client, slot),
      loadScript: async (slot) => {
        await nodeClientOf(client, slot)?.call('SCRIPT', 'LOAD', SCRIPT_SOURCE);
      },
      close: () => closeClient(client),
    };
  } catch (error) {
    client.disconnect();
    throw explain(classifyFailure(error), lastError, config);
  }
}

/**
 * A failure to open, said as what to change where the client's own error tells: refused
 * credentials (the server's WRONGPASS or NOAUTH, which iovalkey reports only as an error event
 * and then as a connection that never became ready) and a cluster reached in the wrong mode.
 */
function explain(failure: EmqError, lastError: unknown, config: Config): EmqError {
  const text = lastError instanceof Error ? lastError.message : '';
  if (NO_PASSWORD_SET.test(text) || NO_PASSWORD_SET.test(failureText(failure))) {
    // Fail closed: the credentials are not the server's, so the target may not be either.
    return new ConfigError(
      "A password was sent to a Valkey server that has none configured for that user: nothing was sent after it. Remove the password (EMQ_PASSWORD, the URL's, the secret's), or set the server's.",
      { cause: lastError ?? failure },
    );
  }
  const refusal = CREDENTIALS_REFUSED.exec(text) ?? CREDENTIALS_REFUSED.exec(failureText(failure));
  const ownLogin = isRefusedLogin(lastError);
  if (refusal !== null || ownLogin) {
    // WRONGPASS (or any refusal of the connector's AUTH) answers credentials that were sent
    // (EMQ_*, a secret, an IAM token or the URL's own); NOAUTH a connection that sent none.
    const { username, password } = configCredentials(config);
    const sent =
      ownLogin ||
      refusal?.[1] === 'WRONGPASS' ||
      password !== undefined ||
      config.iam !== undefined ||
      config.secretArn !== undefined;
    return new ConfigError(
      sent
        ? `Valkey refused to authenticate user '${username ?? config.iam?.userId ?? 'default'}': check its password (in the URL, EMQ_PASSWORD or the secret of EMQ_SECRET_ARN) or its IAM token settings, and that the user exists and is on.`
        : `Valkey wants credentials and none were sent: set EMQ_USERNAME and EMQ_PASSWORD (or EMQ_SECRET_ARN, or EMQ_IAM_AUTH).`,
      { cause: lastError ?? failure },
    );
  }
  if (
    /cluster support disabled/i.test(text) ||
    /cluster support disabled/i.test(failureText(failure))
  ) {
    return new ConfigError(
      'The server is not a cluster node (cluster support disabled): set EMQ_CLUSTER=false (the CLI: leave out --cluster).',
      { cause: lastError ?? failure },
    );
  }
  // A connection that never became ready because of a setup fault (a user without INFO) says
  // so; any other error event (a refused certificate, a reset) leaves it unavailable.
  if (failure.code === 'EMQ_UNAVAILABLE' && lastError !== undefined) {
    const seen = classifyFailure(lastError);
    if (seen instanceof ConfigError) return seen;
  }
  return failure;
}

/** AUTH answered by a server that has no password to check (Valkey's and Redis's texts). */
const NO_PASSWORD_SET = /without any password configured|no password is set/i;

/** Connection errors a retry cannot mend beside refused credentials: the wrong cluster mode. */
const MENDLESS = /cluster support disabled/i;

/** An error event's errno or TLS code (ECONNRESET, SELF_SIGNED_CERT_IN_CHAIN) or its reply prefix. */
function errorCodeOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  const message = error instanceof Error ? error.message : '';
  return /^([A-Z][A-Z_]+)\b/.exec(message)?.[1] ?? 'unknown';
}

function failureText(failure: EmqError): string {
  return failure.cause instanceof Error ? failure.cause.message : '';
}

/**
 * The family the configuration names, or for `auto` the first every primary runs: native
 * where every primary loads the module, function where they run FUNCTION, else script.
 * `native` without the module is a setup fault.
 */
function chooseFamily(readings: readonly FenceReading[], config: Config): Family {
  const choice = config.family;
  if (choice === 'function') return functionFamily;
  if (choice === 'script') return scriptFamily;
  const missing = readings.filter((reading) => !reading.commands.enqueue).length;
  if (missing === 0) {
    return nativeFamily({ admitCommand: readings.every((reading) => reading.commands.admit) });
  }
  if (choice === 'auto') {
    return readings.every((reading) => reading.functions) ? functionFamily : scriptFamily;
  }
  throw new ConfigError(
    `EMQ_EXECUTOR is native but ${missing} of ${readings.length} primaries do not load the EchoMQ module; load it or use EMQ_EXECUTOR=auto.`,
    { code: 'EMQ_NO_MODULE' },
  );
}
