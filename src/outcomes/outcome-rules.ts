/**
 * The text rules beside the outcome table: which server reply or client failure text (or
 * errno code) means which outcome. Rows are matched in order. The messages here are the ones
 * callers may see, so they name no host and echo no server text that could carry one; what
 * the server said goes to operators through causeOf().
 */
import {
  ConfigError,
  EmqError,
  type EmqErrorOptions,
  FenceError,
  PausedError,
  RefusedError,
  UnavailableError,
  UnconfirmedError,
} from './outcomes.js';

/** What is known of the admission a failure belongs to. */
export type FailureContext = Omit<EmqErrorOptions, 'cause'>;

interface Rule {
  readonly test: RegExp;
  readonly make: (options: EmqErrorOptions, text: string) => EmqError;
}

const unavailable = (options: EmqErrorOptions) =>
  new UnavailableError('Valkey is unavailable right now; retry the request.', options);

const RULES: readonly Rule[] = [
  {
    test: /^EMQWIRE\b/,
    make: (options) =>
      new FenceError(
        "The Valkey node's wire identity does not match this host's; retry later. Operators: run `emq doctor`, then `emq install`.",
        options,
      ),
  },
  {
    // FUNCTION FLUSH, a script cache emptied for good, or a node added after the install.
    test: /^(ERR Function not found|NOSCRIPT\b)/i,
    make: (options) =>
      new FenceError(
        'The emq library is not loaded on a Valkey node; retry later. Operators: run `emq install`.',
        options,
      ),
  },
  {
    test: /^(ERR EMQ write-paused|READONLY\b)/,
    make: (options) =>
      new PausedError(
        'Valkey is pausing writes (failover or maintenance); retry shortly.',
        options,
      ),
  },
  {
    test: /^EMQKIND\b/,
    make: (options) =>
      new RefusedError(
        'EMQKIND',
        'The server refused the job id: it must start with JOB.',
        options,
      ),
  },
  {
    test: /^EMQLAYOUT\b/,
    make: (options) =>
      new RefusedError(
        'EMQLAYOUT',
        "The server refused the key layout: the keys of one call must be one queue's (docs/wire.md).",
        options,
      ),
  },
  {
    test: /^WRONGTYPE\b/,
    make: (options) =>
      new RefusedError(
        'EMQ_WRONGTYPE',
        "A key of this queue holds the wrong type (the pending set, a job row or an idempotency record); inspect the queue's keys.",
        options,
      ),
  },
  {
    test: /^ERR unknown command '?EMQ\./i,
    make: (options) =>
      new ConfigError(
        'A Valkey primary does not load the EchoMQ module; load it there, or set EMQ_EXECUTOR=auto.',
        { ...options, code: 'EMQ_NO_MODULE' },
      ),
  },
  {
    // A command the target does not offer (ElastiCache Serverless has no FCALL and no WAIT).
    test: /^ERR unknown (sub)?command/i,
    make: (options) =>
      new ConfigError(
        'The server does not offer a command this host sent: set EMQ_EXECUTOR for the target (script on ElastiCache Serverless) and EMQ_ACK_REPLICAS=0 where there is no WAIT.',
        options,
      ),
  },
  {
    test: /^NOPERM\b/,
    make: (options, text) => new ConfigError(refusedToUser(text), options),
  },
  {
    test: /^(WRONGPASS|NOAUTH)\b/,
    make: (options) =>
      new ConfigError(
        'Valkey refused to authenticate the user; fix the credentials (EMQ_USERNAME and the password or secret).',
        options,
      ),
  },
  {
    // WAIT on a primary demoted by a failover while it waited (UNBLOCKED), or reaching it
    // after (a replica refuses WAIT): the writes before it ran, and no replica confirmed them.
    test: /^(UNBLOCKED\b|ERR WAIT cannot be used with replica)/,
    make: (options) =>
      new UnconfirmedError(
        'The write was not confirmed by a replica: its node stopped being a primary (failover); retry with the same key or id.',
        options,
      ),
  },
  {
    // The slot moved (failover, resharding) after the client read its slot map: the call did
    // not run. The transport refreshes the map, so a retry reaches the new owner.
    test: /^(MOVED|ASK) /,
    make: unavailable,
  },
  {
    test: /^(LOADING|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN|OOM|NOREPLICAS|MISCONF)\b/,
    make: unavailable,
  },
  {
    // A reply the client cannot parse (iovalkey drops the connection): not a Valkey answer.
    test: /^(Protocol error|Too many Cluster redirections|Connection is closed|Command timed out|Stream isn't writeable|None of startup nodes is available|Failed to refresh slots cache|Reached the max retries per request limit|connect ETIMEDOUT|Cluster isn't ready|Node is disconnected)/,
    make: unavailable,
  },
  {
    test: /^(ECONNRESET|ECONNREFUSED|ECONNABORTED|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|EADDRNOTAVAIL|ENETDOWN|EHOSTDOWN|EPROTO)$/,
    make: unavailable,
  },
];

/** The user and the command a NOPERM reply names, as the server names them. */
const NOPERM_NAMING = /^NOPERM User (\S+) has no permissions to run the '([^']+)' command/;

/** The user and the command of a NOPERM failure (`undefined` for any other failure). */
export function refusedRight(
  failure: unknown,
): { readonly user: string | undefined; readonly command: string | undefined } | undefined {
  const text = textsOf(failure).find((candidate) => /^NOPERM\b/.test(candidate));
  if (text === undefined) return undefined;
  const named = NOPERM_NAMING.exec(text);
  return { user: named?.[1], command: named?.[2] };
}

/**
 * What a NOPERM on an admission or a read means. Each family's users hold exactly that
 * family's calls (src/families/access-rules.ts), so the usual cause is a host sending another
 * family's calls than the user was given; the user and the command, as the server names them,
 * say which. A NOPERM on an install step is a missing right instead (src/connection/fence.ts).
 */
function refusedToUser(text: string): string {
  const named = NOPERM_NAMING.exec(text);
  const what =
    named === null
      ? "Valkey refused a key or command this host sends to the connection's user"
      : `Valkey refused '${named[2]}' to user '${named[1]}'`;
  return `${what}: its ACL rules are another family's than this host's calls, or lack one. Set EMQ_EXECUTOR to the family the user was given (function, script or native), or give the user that family's rules (docs/security.md).`;
}

function textsOf(failure: unknown): string[] {
  if (failure instanceof Error) {
    const code = (failure as { code?: unknown }).code;
    return typeof code === 'string' ? [failure.message, code] : [failure.message];
  }
  return [String(failure)];
}

/**
 * Classifies a failure (an Error thrown by iovalkey, or a server error reply) into an EmqError.
 * `context` says which admission it belongs to (its id, whether it may have been written).
 */
export function classifyFailure(failure: unknown, context: FailureContext = {}): EmqError {
  if (failure instanceof EmqError) return failure;
  const texts = textsOf(failure);
  const options = { ...context, cause: failure };
  for (const rule of RULES) {
    const text = texts.find((candidate) => rule.test.test(candidate));
    if (text !== undefined) return rule.make(options, text);
  }
  return new RefusedError(
    'EMQ_UNKNOWN',
    'The server answered in a way this host does not understand; nothing can be assumed written. See the logs.',
    options,
  );
}

/**
 * The failures a reconnect or a fresh slot map mends: the connection was closed or not ready,
 * or the slot moved. The admission waits for the connection and sends the same call again
 * within the invocation (safe: every admission is keyed, docs/wire.md "Idempotency records")
 * instead of answering "retry" for what one thaw of a frozen container or one failover causes. A
 * timeout is not among them: a slow node stays slow; only a cluster that names another node for the
 * slot is worth a resend.
 */
const RECONNECTING =
  /^(Connection is closed|Stream isn't writeable|None of startup nodes is available|Failed to refresh slots cache|Cluster isn't ready|Node is disconnected|Too many Cluster redirections|Reached the max retries per request limit|connect ETIMEDOUT|(MOVED|ASK) |(TRYAGAIN|CLUSTERDOWN|LOADING|MASTERDOWN)\b|(ECONNRESET|ECONNREFUSED|ECONNABORTED|ETIMEDOUT|EPIPE)$)/;

/** True for an unavailable answer that waiting for the connection may mend (RECONNECTING). */
export function mendedByReconnecting(error: EmqError): boolean {
  return unavailableFrom(error, RECONNECTING);
}

/** True for an unavailable answer that is the client's command timeout. */
export function timedOut(error: EmqError): boolean {
  return unavailableFrom(error, /^Command timed out$/);
}

function unavailableFrom(error: EmqError, texts: RegExp): boolean {
  if (error.code !== 'EMQ_UNAVAILABLE' || error.cause === undefined) return false;
  return textsOf(error.cause).some((text) => texts.test(text));
}

/** What an operator may read of a failure's cause: a code and the text, without addresses or wire identities. */
export interface CauseFields {
  /** The server's error prefix (WRONGPASS, EMQWIRE, ERR) or the errno code (ECONNREFUSED). */
  readonly causeCode: string | undefined;
  /** The server's reply or the client's message, addresses and wire identities removed. */
  readonly causeText: string | undefined;
}

// IP addresses, host:port pairs and AWS endpoint names: what a client error may say of where.
const ADDRESS =
  /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b|\[[0-9a-f:]+\](?::\d+)?|\b[a-z0-9.-]+:\d{2,5}\b|\b[a-z0-9.-]+\.amazonaws\.com\b/gi;

/**
 * The operator-facing cause of an EmqError, for the log: what the server or the client library
 * said (its prefix or errno code, and its text without addresses, credentials in URLs or fence
 * values). Anything else (a bug's own error) gives nothing: its text could hold anything.
 */
export function causeOf(error: unknown): CauseFields {
  const cause = error instanceof EmqError ? error.cause : undefined;
  if (!(cause instanceof Error)) return { causeCode: undefined, causeText: undefined };
  const errno = (cause as { code?: unknown }).code;
  const prefix = /^([A-Z][A-Z_]+)\b/.exec(cause.message)?.[1];
  let text = cause.message
    .replace(/\/\/[^/@\s]*@/g, '//<credentials>@')
    .replace(ADDRESS, '<address>');
  // A fence refusal names both identities: operators find those with `emq doctor`.
  if (prefix === 'EMQWIRE')
    text = text.replace(/(node has|host expects|module expects) \S+/g, '$1 <value>');
  return {
    causeCode: typeof errno === 'string' ? errno : prefix,
    causeText: text.slice(0, 300),
  };
}
