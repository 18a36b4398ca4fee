/**
 * One connection per Lambda container, opened on first use and reused by every invocation.
 * A failed open is not cached: the next invocation tries again. With IAM authentication the
 * connection is moved onto a fresh token (or rebuilt) before it is handed out. A connection
 * whose login a server refused since it opened (a password rotated, then a reconnect) is
 * replaced; with a secret, a refusal reads the secret again (docs/security.md, "Credentials: fail closed").
 */
import type { AdmissionTarget } from '../../src/admission/admission.js';
import {
  credentialsChanging,
  isCredentialRefusal,
} from '../../src/connection/authenticating-connector.js';
import { type Connection, connect, type Warn } from '../../src/connection/connector.js';
import { loginRefused } from '../../src/connection/credentials.js';
import { causeOf, classifyFailure } from '../../src/outcomes/outcome-rules.js';
import { type Config, loadConfig } from '../../src/settings/config.js';
import { IamSession } from './iam-session.js';
import { errorFields, log } from './log.js';
import { type Credentials, SecretCredentials, sameCredentials } from './secrets.js';

let config: Config | undefined;
let pending: Promise<Connection> | undefined;
let iam: IamSession | undefined;
let secret: SecretCredentials | undefined;
/** What a connection opened with: the secret's credentials, if they came from one. */
interface Opened {
  readonly connection: Connection;
  readonly credentials: Credentials | undefined;
}

/** The open connection, and the `pending` promise that resolved to it. */
let opened: (Opened & { readonly pending: Promise<Connection> }) | undefined;

/** The container's configuration, read from the environment once. */
export function containerConfig(): Config {
  config ??= loadConfig();
  return config;
}

/** The container's admission: its configuration, and its connection opened on first use. */
export function containerAdmission(): AdmissionTarget {
  return { config: containerConfig(), connection: containerConnection };
}

/** The container's connection; opens it on first use, renews its IAM token when due. */
export function containerConnection(): Promise<Connection> {
  if (opened !== undefined && opened.pending === pending && unusable(opened.connection)) {
    const stale = opened;
    opened = undefined;
    pending = undefined;
    if (stale.credentials !== undefined && loginRefused(stale.connection)) {
      secret?.refused(stale.credentials);
    }
    void stale.connection.close();
  }
  const current = pending ?? start();
  return iam === undefined || current !== pending ? current : keptFresh(iam, current);
}

/** Closes the container's connection and forgets the configuration (tests, shutdown). */
export async function resetContainer(): Promise<void> {
  const current = pending;
  pending = undefined;
  config = undefined;
  iam = undefined;
  secret = undefined;
  opened = undefined;
  if (current !== undefined) await (await current.catch(() => undefined))?.close();
}

function start(): Promise<Connection> {
  const opening: Promise<Connection> = open(containerConfig()).then((result) => {
    if (pending === opening) opened = { ...result, pending: opening };
    return result.connection;
  });
  pending = opening;
  opening.catch((error: unknown) => {
    if (pending === opening) pending = undefined;
    // Once per failed open, whatever the requests waiting on it are told: the operator's line.
    const failure = classifyFailure(error);
    const { causeCode, causeText } = causeOf(failure);
    // Refused credentials are an operator's matter even while callers are told to retry.
    const level = failure.retryable && !isCredentialRefusal(failure) ? 'warn' : 'error';
    log(level, 'connection failed', {
      ...errorFields(failure),
      code: failure.code,
      ...(failure.operatorOnly ? { detail: failure.message } : {}),
      cause: causeCode,
      causeText,
    });
  });
  return opening;
}

async function keptFresh(session: IamSession, current: Promise<Connection>): Promise<Connection> {
  const connection = await current;
  if (await session.keepFresh(connection)) return connection;
  // A server refused the new token on the open connection: open a new one with it.
  if (pending === current) {
    pending = undefined;
    void connection.close();
  }
  return pending ?? start();
}

/**
 * A connection that cannot serve again: a server refused its login since it opened (every
 * later reconnect would be refused too), or its client ended (a refused reconnect ends it).
 */
function unusable(connection: Connection): boolean {
  return loginRefused(connection) || connection.client.status === 'end';
}

async function open(config: Config): Promise<Opened> {
  const onWarning: Warn = (event, fields) => log('warn', event, fields);
  if (config.iam !== undefined) {
    iam ??= new IamSession(config.iam);
    const token = await iam.token();
    const connection = await connect({
      ...config,
      username: config.iam.userId,
      password: token,
      onWarning,
    });
    iam.opened(token);
    return { connection, credentials: undefined };
  }
  if (config.secretArn === undefined) {
    return { connection: await connect({ ...config, onWarning }), credentials: undefined };
  }
  secret ??= new SecretCredentials(config.secretArn);
  return openWithSecret(config, secret, onWarning);
}

/**
 * Opens with the secret's credentials. Refused, it reads the secret again (when due) and opens
 * with what it holds now, once; while the secret still holds refused credentials, the answer
 * is a retryable pause (a rotation under way), never a configuration error.
 */
async function openWithSecret(
  config: Config,
  source: SecretCredentials,
  onWarning: Warn,
): Promise<Opened> {
  let credentials = await source.get();
  for (let attempt = 1; ; attempt++) {
    try {
      const connection = await connect({
        ...config,
        ...credentials,
        onWarning,
        renewableCredentials: true,
      });
      return { connection, credentials };
    } catch (error) {
      if (!isCredentialRefusal(error)) throw error;
      source.refused(credentials);
      const next = attempt === 1 ? await source.get() : credentials;
      if (sameCredentials(next, credentials)) throw credentialsChanging(error);
      credentials = next;
    }
  }
}
