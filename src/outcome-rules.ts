/**
 * The text rules beside the outcome table: which server reply or client failure text (or
 * errno code) means which outcome. Rows are matched in order. The messages here are the ones
 * callers see, so they name no host and echo no server text that could carry one.
 */
import {
  ConfigError,
  EmqError,
  FenceError,
  PausedError,
  RefusedError,
  UnavailableError,
  type WriteStatus,
} from './outcomes.js';

interface Rule {
  readonly test: RegExp;
  readonly make: (cause: unknown) => EmqError;
}

const unavailable = (cause: unknown) =>
  new UnavailableError('Valkey is unavailable right now; retry the request.', { cause });

const RULES: readonly Rule[] = [
  {
    test: /^EMQWIRE\b/,
    make: (cause) =>
      new FenceError(
        "The Valkey node's wire identity does not match this host's; retry later. Operators: run `emq fence check`, then `emq install`.",
        { cause },
      ),
  },
  {
    // FUNCTION FLUSH, or a node added after the install: the library must be loaded again.
    test: /^ERR Function not found/i,
    make: (cause) =>
      new FenceError(
        'The emq function library is not loaded on a Valkey node; retry later. Operators: run `emq install`.',
        { cause },
      ),
  },
  {
    test: /^(ERR EMQ write-paused|READONLY\b)/,
    make: (cause) =>
      new PausedError('Valkey is pausing writes (failover or maintenance); retry shortly.', {
        cause,
      }),
  },
  {
    test: /^EMQKIND\b/,
    make: (cause) =>
      new RefusedError('EMQKIND', 'The server refused the job id: it must start with JOB.', {
        cause,
      }),
  },
  {
    test: /^EMQLAYOUT\b/,
    make: (cause) =>
      new RefusedError(
        'EMQLAYOUT',
        "The server refused the key layout: keys must be one queue's emq:{q}:job:<id>, emq:{q}:pending and emq:{q}:dedupe:<h>.",
        { cause },
      ),
  },
  {
    test: /^WRONGTYPE\b/,
    make: (cause) =>
      new RefusedError(
        'EMQ_WRONGTYPE',
        "A key of this queue holds the wrong type (the pending set, a job row or an idempotency record); inspect the queue's keys.",
        { cause },
      ),
  },
  {
    test: /^ERR unknown command '?EMQ\./i,
    make: (cause) =>
      new ConfigError(
        'A Valkey primary does not load the EchoMQ module; load it there, or use the function executor.',
        { cause, code: 'EMQ_NO_MODULE' },
      ),
  },
  {
    test: /^(NOPERM|NOAUTH|WRONGPASS)\b/,
    make: (cause) =>
      new ConfigError(
        "The Valkey user is refused (credentials or ACL rules); fix the function's user and its permissions.",
        { cause },
      ),
  },
  {
    // The slot moved (failover, resharding) after the client read its slot map: the command
    // did not run. rounds.ts refreshes the map, so a retry reaches the new owner.
    test: /^(MOVED|ASK) /,
    make: unavailable,
  },
  {
    test: /^(LOADING|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN|OOM|NOREPLICAS|MISCONF)\b/,
    make: unavailable,
  },
  {
    test: /^(Too many Cluster redirections|Connection is closed|Command timed out|Stream isn't writeable|None of startup nodes is available|Failed to refresh slots cache|Reached the max retries per request limit|connect ETIMEDOUT|Cluster isn't ready|Node is disconnected)/,
    make: unavailable,
  },
  {
    test: /^(ECONNRESET|ECONNREFUSED|ECONNABORTED|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|EADDRNOTAVAIL|ENETDOWN|EHOSTDOWN|EPROTO)$/,
    make: unavailable,
  },
];

function textsOf(failure: unknown): string[] {
  if (failure instanceof Error) {
    const code = (failure as { code?: unknown }).code;
    return typeof code === 'string' ? [failure.message, code] : [failure.message];
  }
  return [String(failure)];
}

/** Classifies a failure (an Error thrown by iovalkey, or a server error reply) into an EmqError. */
export function classifyFailure(failure: unknown): EmqError {
  if (failure instanceof EmqError) return failure;
  const texts = textsOf(failure);
  for (const rule of RULES) {
    if (texts.some((text) => rule.test.test(text))) return rule.make(failure);
  }
  return new RefusedError(
    'EMQ_UNKNOWN',
    'The server answered in a way this host does not understand; nothing can be assumed written. See the logs.',
    { cause: failure },
  );
}

/** Classifies an enqueue reply: 1 enqueued, 0 duplicate, an error reply or anything else a failure. */
export function classify(replyOrFailure: unknown): WriteStatus | EmqError {
  if (replyOrFailure === 1) return 'enqueued';
  if (replyOrFailure === 0) return 'duplicate';
  return classifyFailure(replyOrFailure);
}
