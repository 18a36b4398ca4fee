/**
 * Authentication before anything else, on every socket a client opens (docs/security.md:
 * "nothing is sent before authentication succeeded"). iovalkey sends its own AUTH and, with
 * the ready check off (clients.ts), writes the queued commands right behind it: when the AUTH
 * is refused they run as whoever the connection is then, the server's `default` user included.
 * So the socket is opened here, `AUTH` is sent and its one reply read, and only a `+OK` hands
 * the connected socket to iovalkey, which is given no password and sends no AUTH of its own.
 *
 * Depends on iovalkey internals; written against iovalkey 0.4.0 (Redis.js connect()):
 * - `options.Connector` is instantiated once per client with the client's options (host,
 *   port, tls, connectTimeout), and a cluster's node clients and its slot-map readers
 *   (`duplicate()`) copy it with the rest of the options, so each of their sockets comes here.
 * - A stream handed over already connected gets iovalkey's connect handler on the next tick
 *   (no connect timeout of its own then: the one here covers the connect and the AUTH).
 * - A stream handed over destroyed, with `firstError` set, is reported as that error and a
 *   close: the client reconnects by its retry strategy (a network fault, a timeout).
 * - A rejected connect() ends the client (status `end`) with its queued commands failed by
 *   that error and nothing written: what a refused login must do.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { type ConnectionOptions as TlsOptions, connect as tlsConnect } from 'node:tls';
import { AbstractConnector } from 'iovalkey';
import { UnavailableError } from '../outcomes/outcomes.js';

/** What a connection authenticates with; no password: it sends no AUTH. */
export interface LoginCredentials {
  readonly username: string | undefined;
  readonly password: string | undefined;
}

/**
 * The credentials a client's next connects read, each at its own connect: a renewed IAM token
 * or a re-read secret reaches every later connect and reconnect, of every cluster node.
 */
export class CredentialSource {
  #current: LoginCredentials;

  /**
   * `renewable`: the credentials come from a store that may hold newer ones (a secret being
   * rotated), so a refusal is answered as a retryable pause while the holder reads it again.
   */
  #refused = false;

  constructor(
    initial: LoginCredentials,
    readonly renewable = false,
  ) {
    this.#current = initial;
  }

  get current(): LoginCredentials {
    return this.#current;
  }

  /** Every later connect authenticates with `password` (same user). */
  setPassword(password: string): void {
    this.#current = { ...this.#current, password };
    this.#refused = false;
  }

  /** A server refused the credentials held now: no later connect can succeed with them. */
  get refused(): boolean {
    return this.#refused;
  }

  /** Notes a refusal of `credentials`, if they are still the ones held. */
  noteRefusal(credentials: LoginCredentials): void {
    if (credentials === this.#current) this.#refused = true;
  }
}

/** A server's refusal of credentials: WRONGPASS (wrong, off, unknown), NOAUTH (none sent). */
export const CREDENTIALS_REFUSED = /^(WRONGPASS|NOAUTH)\b/;

/** The server refused a connection's AUTH: nothing was sent after it and the socket is closed. */
export class AuthenticationRefused extends Error {
  override readonly name = 'AuthenticationRefused';
}

/** A refusal of renewable credentials (a rotation under way?): retryable, the refusal its cause. */
function refusalOf(text: string, source: CredentialSource): Error {
  const refusal = new AuthenticationRefused(text);
  return source.renewable && CREDENTIALS_REFUSED.test(text)
    ? credentialsChanging(refusal)
    : refusal;
}

/** What a caller hears while refused credentials may be being replaced: retry shortly. */
export function credentialsChanging(cause: unknown): UnavailableError {
  return new UnavailableError(
    'The cache refused the credentials; they may be changing (a rotation). Retry shortly.',
    { cause },
  );
}

/** True for the connector's own refusal of a login, as the error or its cause. */
export function isRefusedLogin(error: unknown): boolean {
  return (
    error instanceof AuthenticationRefused ||
    (error instanceof Error && error.cause instanceof AuthenticationRefused)
  );
}

/**
 * True for a failure caused by refused credentials (WRONGPASS, NOAUTH: a wrong or rotated
 * password, a user that is off or unknown), as the error or any of its causes says.
 */
export function isCredentialRefusal(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 5; depth++) {
    if (CREDENTIALS_REFUSED.test(at.message)) return true;
    at = at.cause;
  }
  return false;
}

/** What of iovalkey's options a connector reads. */
interface SocketOptions {
  readonly host?: string;
  readonly port?: number;
  readonly family?: number;
  readonly tls?: TlsOptions;
  readonly connectTimeout?: number;
  readonly disconnectTimeout: number;
}

/** iovalkey's text for a client closed while connecting (utils CONNECTION_CLOSED_ERROR_MSG). */
const CLOSED = 'Connection is closed.';

/** An iovalkey `Connector` class whose sockets authenticate with `source` before anything else. */
export function authenticatingConnector(
  source: CredentialSource,
): new (
  options: unknown,
) => AbstractConnector {
  return class AuthenticatingConnector extends AbstractConnector {
    readonly #options: SocketOptions;

    constructor(options: unknown) {
      const socketOptions = options as SocketOptions;
      super(socketOptions.disconnectTimeout);
      this.#options = socketOptions;
    }

    connect(): Promise<Socket> {
      this.connecting = true;
      // The next tick, as iovalkey's own connector: a disconnect() just after connect() wins.
      return new Promise((resolve, reject) => {
        process.nextTick(() => {
          if (!this.connecting) {
            reject(new Error(CLOSED));
            return;
          }
          try {
            this.stream = openSocket(this.#options);
          } catch (error) {
            reject(error);
            return;
          }
          const credentials = source.current;
          login(this.stream, credentials, this.#options, {
            ready: resolve,
            refused: (text) => {
              source.noteRefusal(credentials);
              reject(refusalOf(text, source));
            },
            failed: (socket, error) => {
              // Closed by the client itself while logging in: end it, as iovalkey would.
              if (!this.connecting) {
                reject(new Error(CLOSED));
                return;
              }
              this.firstError = error;
              resolve(socket);
            },
          });
        });
      });
    }
  };
}

function openSocket(options: SocketOptions): Socket {
  const port = options.port ?? 6379;
  const address = {
    port,
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.family === undefined ? {} : { family: options.family }),
  };
  return options.tls ? tlsConnect({ ...address, ...options.tls }) : netConnect(address);
}

interface LoginOutcome {
  /** Authenticated (or nothing to authenticate): the socket, connected, nothing else sent. */
  ready(socket: Socket): void;
  /** The server refused the login (its reply's text): the socket is destroyed. */
  refused(text: string): void;
  /** A network fault or the timeout: the socket is destroyed; a reconnect may mend it. */
  failed(socket: Socket, error: Error): void;
}

/** Connects, sends AUTH where there are credentials, and settles `outcome` exactly once. */
function login(
  socket: Socket,
  credentials: LoginCredentials,
  options: SocketOptions,
  outcome: LoginOutcome,
): void {
  let settled = false;
  let received = Buffer.alloc(0);
  const settle = (then: () => void) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    socket.off('error', onError);
    socket.off('close', onClose);
    socket.off('data', onData);
    then();
  };
  const fail = (error: Error) =>
    settle(() => {
      socket.destroy();
      outcome.failed(socket, error);
    });
  const onError = (error: Error) => fail(error);
  const onClose = () => fail(new Error(CLOSED));
  const onData = (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    const end = received.indexOf('\r\n');
    if (end < 0) {
      if (received.length > MAX_REPLY_BYTES) refuse('Protocol error: AUTH reply too long');
      return;
    }
    const line = received.subarray(0, end).toString('utf8');
    // One command sent, one reply expected: anything after it is not a Valkey answer.
    if (line === '+OK' && received.length === end + 2) {
      settle(() => outcome.ready(socket));
    } else if (line.startsWith('-')) {
      refuse(line.slice(1));
    } else {
      refuse('Protocol error: unexpected reply to AUTH');
    }
  };
  const refuse = (text: string) =>
    settle(() => {
      socket.destroy();
      outcome.refused(text);
    });
  const onConnect = () => {
    if (settled) return;
    const command = authCommand(credentials);
    if (command === undefined) {
      settle(() => outcome.ready(socket));
      return;
    }
    socket.on('data', onData);
    socket.write(command);
  };

  const timeoutMs = options.connectTimeout;
  const timer =
    typeof timeoutMs === 'number' && timeoutMs > 0
      ? setTimeout(() => fail(timedOut()), timeoutMs)
      : undefined;
  socket.once('error', onError);
  socket.once('close', onClose);
  socket.once(options.tls ? 'secureConnect' : 'connect', onConnect);
}

/** The longest AUTH reply read before it counts as a protocol error. */
const MAX_REPLY_BYTES = 4096;

/** iovalkey's own connect timeout error, so that it is classified and retried as one. */
function timedOut(): Error {
  return Object.assign(new Error('connect ETIMEDOUT'), {
    errorno: 'ETIMEDOUT',
    code: 'ETIMEDOUT',
    syscall: 'connect',
  });
}

/**
 * `AUTH [username] password` in RESP. A user without a password still authenticates (with an
 * empty one): a user that needs one is then refused, never served as `default`.
 */
function authCommand({ username, password }: LoginCredentials): Buffer | undefined {
  if (password === undefined && username === undefined) return undefined;
  const args = ['AUTH', ...(username === undefined ? [] : [username]), password ?? ''];
  const parts = [`*${args.length}\r\n`];
  for (const arg of args) parts.push(`$${Buffer.byteLength(arg)}\r\n${arg}\r\n`);
  return Buffer.from(parts.join(''), 'utf8');
}
