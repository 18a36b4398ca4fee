import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  ConfigError,
  ConflictError,
  EmqError,
  FenceError,
  InvalidInputError,
  PausedError,
  RefusedError,
  UnavailableError,
  UnconfirmedError,
} from '../../src/index.js';
import { causeOf, classifyFailure } from '../../src/outcomes/outcome-rules.js';
import { OUTCOMES } from '../../src/outcomes/outcomes.js';

class ReplyError extends Error {}
function errnoError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 10.0.0.1:6379`), { code });
}

describe('classifyFailure', () => {
  it.each([
    ['EMQWIRE wire identity mismatch', FenceError, 'EMQWIRE', true, 503],
    ['ERR EMQ write-paused', PausedError, 'EMQ_PAUSED', true, 503],
    ["READONLY You can't write against a read only replica.", PausedError, 'EMQ_PAUSED', true, 503],
    ['EMQKIND job id must be JOB-namespaced', RefusedError, 'EMQKIND', false, 500],
    ['EMQLAYOUT keys must be emq:{q}:job:<id>', RefusedError, 'EMQLAYOUT', false, 500],
    [
      'WRONGTYPE Operation against a key holding the wrong kind of value',
      RefusedError,
      'EMQ_WRONGTYPE',
      false,
      500,
    ],
    [
      "ERR unknown command 'EMQ.ENQUEUE', with args beginning with: ",
      ConfigError,
      'EMQ_NO_MODULE',
      false,
      500,
    ],
    // Issue 14, defect 6: each of these was a permanent EMQ_UNKNOWN (DLQ, HTTP 500).
    [
      'NOREPLICAS Not enough good replicas to write.',
      UnavailableError,
      'EMQ_UNAVAILABLE',
      true,
      503,
    ],
    [
      'MISCONF Errors writing to the AOF file: No space left on device',
      UnavailableError,
      'EMQ_UNAVAILABLE',
      true,
      503,
    ],
    [
      "Cluster isn't ready and enableOfflineQueue options is false",
      UnavailableError,
      'EMQ_UNAVAILABLE',
      true,
      503,
    ],
    ['Node is disconnected', UnavailableError, 'EMQ_UNAVAILABLE', true, 503],
    [
      "NOPERM User emq has no permissions to run the 'fcall' command",
      ConfigError,
      'EMQ_CONFIG',
      false,
      500,
    ],
    ['NOAUTH Authentication required.', ConfigError, 'EMQ_CONFIG', false, 500],
    [
      'WRONGPASS invalid username-password pair or user is disabled.',
      ConfigError,
      'EMQ_CONFIG',
      false,
      500,
    ],
    ['ERR Function not found', FenceError, 'EMQWIRE', true, 503],
    [
      'LOADING Valkey is loading the dataset in memory',
      UnavailableError,
      'EMQ_UNAVAILABLE',
      true,
      503,
    ],
    ['MASTERDOWN Link with MASTER is down', UnavailableError, 'EMQ_UNAVAILABLE', true, 503],
    [
      'UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)',
      UnconfirmedError,
      'EMQ_UNCONFIRMED',
      true,
      503,
    ],
    [
      'ERR WAIT cannot be used with replica instances. Please also note that if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.',
      UnconfirmedError,
      'EMQ_UNCONFIRMED',
      true,
      503,
    ],
    ['BUSY Valkey is busy running a script.', UnavailableError, 'EMQ_UNAVAILABLE', true, 503],
    [
      'TRYAGAIN Multiple keys request during rehashing',
      UnavailableError,
      'EMQ_UNAVAILABLE',
      true,
      503,
    ],
    ['CLUSTERDOWN The cluster is down', UnavailableError, 'EMQ_UNAVAILABLE', true, 503],
    ['OOM command not allowed when used memory', UnavailableError, 'EMQ_UNAVAILABLE', true, 503],
    ['MOVED 3999 127.0.0.1:6381', UnavailableError, 'EMQ_UNAVAILABLE', true, 503],
    ['ASK 3999 127.0.0.1:6381', UnavailableError, 'EMQ_UNAVAILABLE', true, 503],
    [
      'Too many Cluster redirections. Last error: Error: Connection is closed.',
      UnavailableError,
      'EMQ_UNAVAILABLE',
      true,
      503,
    ],
    ['Connection is closed.', UnavailableError, 'EMQ_UNAVAILABLE', true, 503],
    ['Command timed out', UnavailableError, 'EMQ_UNAVAILABLE', true, 503],
    ['None of startup nodes is available', UnavailableError, 'EMQ_UNAVAILABLE', true, 503],
    ['ERR something new', RefusedError, 'EMQ_UNKNOWN', false, 500],
  ])('maps %j to its class', (text, kind, code, retryable, status) => {
    const outcome = classifyFailure(new ReplyError(text));
    expect(outcome).toBeInstanceOf(kind);
    expect(outcome).toMatchObject({ code, retryable, status });
  });

  it.each([
    ['ECONNRESET'],
    ['ECONNREFUSED'],
    ['ETIMEDOUT'],
    ['EPIPE'],
    ['EHOSTUNREACH'],
    ['EADDRNOTAVAIL'],
    ['ENETDOWN'],
    ['EHOSTDOWN'],
    ['EPROTO'],
  ])('maps the socket error %s to unavailable', (code) => {
    expect(classifyFailure(errnoError(code))).toBeInstanceOf(UnavailableError);
  });

  it('keeps the original failure as the cause of an unknown reply', () => {
    const original = new ReplyError('ERR something new');
    expect(classifyFailure(original).cause).toBe(original);
  });

  it('never repeats a connection error text that names a host', () => {
    const outcome = classifyFailure(errnoError('ECONNREFUSED'));
    expect(outcome.message).not.toContain('10.0.0.1');
  });

  it('passes an EmqError through unchanged', () => {
    const error = new ConflictError('EMQ_CONFLICT', 'taken');
    expect(classifyFailure(error)).toBe(error);
  });
});

describe('the error family', () => {
  it('gives every class one base, a stable code and the HTTP status of docs/reliability.md "Outcomes"', () => {
    const rows: [EmqError, string, boolean, number][] = [
      [new InvalidInputError('EMQ_INVALID_QUEUE', 'x'), 'EMQ_INVALID_QUEUE', false, 400],
      [new InvalidInputError('EMQ_PAYLOAD_TOO_LARGE', 'x'), 'EMQ_PAYLOAD_TOO_LARGE', false, 413],
      [new ConflictError('EMQ_CONFLICT', 'x'), 'EMQ_CONFLICT', false, 409],
      [new ConflictError('EMQ_IDEMPOTENCY_MISMATCH', 'x'), 'EMQ_IDEMPOTENCY_MISMATCH', false, 422],
      [new RefusedError('EMQKIND', 'x'), 'EMQKIND', false, 500],
      [new FenceError('x'), 'EMQWIRE', true, 503],
      [new PausedError('x'), 'EMQ_PAUSED', true, 503],
      [new UnavailableError('x'), 'EMQ_UNAVAILABLE', true, 503],
      [
        new UnconfirmedError('x', { jobId: 'JOB0KHTOWnGLuC', written: 'yes' }),
        'EMQ_UNCONFIRMED',
        true,
        503,
      ],
      [new ConfigError('x', { code: 'EMQ_NO_MODULE' }), 'EMQ_NO_MODULE', false, 500],
    ];
    for (const [error, code, retryable, status] of rows) {
      expect(error).toBeInstanceOf(EmqError);
      expect({ code: error.code, retryable: error.retryable, status: error.status }).toEqual({
        code,
        retryable,
        status,
      });
    }
  });

  it(`sends to the DLQ only what is the record's own fault (docs/reliability.md, "Outcomes")`, () => {
    const dead = Object.entries(OUTCOMES)
      .filter(([, outcome]) => outcome.messageFault)
      .map(([code]) => code)
      .sort();
    expect(dead).toEqual(
      [
        'EMQKIND',
        'EMQLAYOUT',
        'EMQ_CONFLICT',
        'EMQ_IDEMPOTENCY_MISMATCH',
        'EMQ_INVALID_ID',
        'EMQ_INVALID_QUEUE',
        'EMQ_INVALID_REQUEST',
        'EMQ_PAYLOAD_TOO_LARGE',
        'EMQ_WRONGTYPE',
      ].sort(),
    );
    expect(new ConfigError('x').messageFault).toBe(false);
    expect(new RefusedError('EMQ_UNKNOWN', 'x').messageFault).toBe(false);
  });

  it('gives every retryable outcome a Retry-After and names the job of an unconfirmed write', () => {
    for (const outcome of Object.values(OUTCOMES)) {
      expect(outcome.retryable ? outcome.retryAfterSeconds : undefined).toSatisfy(
        (value: number | undefined) => (outcome.retryable ? (value ?? 0) > 0 : value === undefined),
      );
    }
    expect(new UnconfirmedError('x', { jobId: 'JOB0KHTOWnGLuC', written: 'yes' }).jobId).toBe(
      'JOB0KHTOWnGLuC',
    );
  });

  it('has every code in the OpenAPI document, so the client and callers know each one', () => {
    const document = parse(
      readFileSync(new URL('../../openapi/openapi.yaml', import.meta.url), 'utf8'),
    ) as { components: { schemas: { ProblemCode: { enum: string[] } } } };
    const documented = document.components.schemas.ProblemCode.enum;
    const missing = Object.keys(OUTCOMES).filter((code) => !documented.includes(code));
    expect(missing, 'add each to ProblemCode in openapi/openapi.yaml').toEqual([]);
  });

  it('names each error after its class', () => {
    expect(new FenceError('x').name).toBe('FenceError');
  });

  it('keeps operator-only messages out of public details, by the one table', () => {
    const operatorOnly = Object.entries(OUTCOMES)
      .filter(([, outcome]) => outcome.publicDetail !== undefined)
      .map(([code]) => code)
      .sort();
    expect(operatorOnly).toEqual(['EMQWIRE', 'EMQ_CONFIG', 'EMQ_NO_MODULE']);
    const fence = new FenceError("node 07c3 holds 'x'; this host expects '1'");
    expect(fence.operatorOnly).toBe(true);
    expect(fence.publicDetail).not.toMatch(/07c3|'x'|'1'/);
    const config = new ConfigError('EMQ_DEDUPE_TTL_MS is invalid');
    expect(config.publicDetail).not.toContain('EMQ_DEDUPE_TTL_MS');
    expect(new PausedError('pausing').publicDetail).toBe('pausing');
  });
});

describe('causeOf', () => {
  it("gives operators the server's prefix and text, without addresses or wire identities", () => {
    const refused = classifyFailure(
      new Error('WRONGPASS invalid username-password pair or user is disabled.'),
    );
    expect(causeOf(refused)).toEqual({
      causeCode: 'WRONGPASS',
      causeText: 'WRONGPASS invalid username-password pair or user is disabled.',
    });
    expect(causeOf(classifyFailure(errnoError('ECONNREFUSED')))).toEqual({
      causeCode: 'ECONNREFUSED',
      causeText: 'connect ECONNREFUSED <address>',
    });
    const fence = classifyFailure(
      new Error("EMQWIRE wire identity mismatch: node has 'secret-2', module expects '1'"),
    );
    expect(causeOf(fence).causeText).toBe(
      'EMQWIRE wire identity mismatch: node has <value> module expects <value>',
    );
    expect(
      causeOf(classifyFailure(new Error('connect ETIMEDOUT cache.abc.euw1.cache.amazonaws.com')))
        .causeText,
    ).toBe('connect ETIMEDOUT <address>');
  });
});
