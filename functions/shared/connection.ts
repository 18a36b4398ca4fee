/**
 * One connection per Lambda container, opened on first use and reused by every invocation.
 * A failed open is not cached: the next invocation tries again. With IAM authentication the
 * connection is moved onto a fresh token (or rebuilt) before it is handed out.
 */
import type { AdmissionTarget } from '../../src/admission/admission.js';
import { type Connection, connect } from '../../src/connection/connector.js';
import { causeOf, classifyFailure } from '../../src/outcomes/outcome-rules.js';
import { type Config, loadConfig } from '../../src/settings/config.js';
import { IamSession } from './iam-session.js';
import { errorFields, log } from './log.js';
import { readCredentials } from './secrets.js';

let config: Config | undefined;
let pending: Promise<Connection> | undefined;
let iam: IamSession | undefined;

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
  const current = pending ?? start();
  return iam === undefined || current !== pending ? current : keptFresh(iam, current);
}

/** Closes the container's connection and forgets the configuration (tests, shutdown). */
export async function resetContainer(): Promise<void> {
  const current = pending;
  pending = undefined;
  config = undefined;
  iam = undefined;
  if (current !== undefined) await (await current.catch(() => undefined))?.close();
}

function start(): Promise<Connection> {
  const opening = open(containerConfig());
  pending = opening;
  opening.catch((error: unknown) => {
    if (pending === opening) pending = undefined;
    // Once per failed open, whatever the requests waiting on it are told: the operator's line.
    const failure = classifyFailure(error);
    const { causeCode, causeText } = causeOf(failure);
    log(failure.retryable ? 'warn' : 'error', 'connection failed', {
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

async function open(config: Config): Promise<Connection> {
  const onWarning = (event: string, fields: Readonly<Record<string, string>>) =>
    log('warn', event, fields);
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
    return connection;
  }
  const credentials =
    config.secretArn === undefined ? undefined : await readCredentials(config.secretArn);
  return connect({ ...config, ...credentials, onWarning });
}
