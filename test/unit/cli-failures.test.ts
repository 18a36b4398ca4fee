// What the CLI prints and exits with for each kind of failure (cli/failures.ts): 0 ok, 1 refused
// or failed (a setup refusal at connect too), 2 usage (bad arguments or settings, nothing
// attempted). Every outcome code of the core is listed, so a new one fails to compile here.
import { CommanderError, InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { configFrom } from '../../cli/connection.js';
import {
  CliFailure,
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
  type ExitCode,
  exitCodesText,
  reportOf,
  USAGE_CODE,
  usageFailure,
} from '../../cli/failures.js';
import {
  ConfigError,
  ConflictError,
  type EmqError,
  type ErrorCode,
  FenceError,
  InvalidInputError,
  PausedError,
  RefusedError,
  UnavailableError,
  UnconfirmedError,
} from '../../src/index.js';
import { OUTCOMES } from '../../src/outcomes/outcomes.js';

/** One error of every code the core has, and the exit code the CLI must end with. */
const EVERY_CODE: Record<ErrorCode, readonly [EmqError, ExitCode]> = {
  // The core throws these only from its checks before any I/O: the arguments' fault.
  EMQ_INVALID_QUEUE: [new InvalidInputError('EMQ_INVALID_QUEUE', 'q'), EXIT_USAGE],
  EMQ_INVALID_ID: [new InvalidInputError('EMQ_INVALID_ID', 'id'), EXIT_USAGE],
  EMQ_INVALID_REQUEST: [new InvalidInputError('EMQ_INVALID_REQUEST', 'key'), EXIT_USAGE],
  // Read, then refused by the configured limit.
  EMQ_PAYLOAD_TOO_LARGE: [new InvalidInputError('EMQ_PAYLOAD_TOO_LARGE', 'big'), EXIT_FAILED],
  EMQ_CONFLICT: [new ConflictError('EMQ_CONFLICT', 'c'), EXIT_FAILED],
  EMQ_IDEMPOTENCY_MISMATCH: [new ConflictError('EMQ_IDEMPOTENCY_MISMATCH', 'm'), EXIT_FAILED],
  EMQKIND: [new RefusedError('EMQKIND', 'k'), EXIT_FAILED],
  EMQLAYOUT: [new RefusedError('EMQLAYOUT', 'l'), EXIT_FAILED],
  EMQ_WRONGTYPE: [new RefusedError('EMQ_WRONGTYPE', 'w'), EXIT_FAILED],
  EMQ_UNKNOWN: [new RefusedError('EMQ_UNKNOWN', 'u'), EXIT_FAILED],
  // Found at connect (an evicting memory policy, an ACL, no module): a setup refusal.
  EMQ_CONFIG: [new ConfigError('maxmemory-policy allkeys-lru'), EXIT_FAILED],
  EMQ_NO_MODULE: [new ConfigError('no module', { code: 'EMQ_NO_MODULE' }), EXIT_FAILED],
  EMQWIRE: [new FenceError('f'), EXIT_FAILED],
  EMQ_PAUSED: [new PausedError('p'), EXIT_FAILED],
  EMQ_UNCONFIRMED: [
    new UnconfirmedError('c', { jobId: 'JOB0KHTOWnGLuC', written: 'yes' }),
    EXIT_FAILED,
  ],
  EMQ_UNAVAILABLE: [new UnavailableError('u'), EXIT_FAILED],
};

describe('CLI exit codes', () => {
  it('ends every outcome code of the core with its exit code', () => {
    expect(Object.keys(EVERY_CODE).sort()).toEqual(Object.keys(OUTCOMES).sort());
    for (const [code, [error, exitCode]] of Object.entries(EVERY_CODE)) {
      expect(error.code).toBe(code);
      expect(reportOf(error).exitCode, code).toBe(exitCode);
    }
  });

  it('ends a setting the CLI was given that is malformed as usage: exit 2', () => {
    for (const env of [{ EMQ_URL: 'http://x' }, { EMQ_CLUSTER: 'yes' }, { EMQ_WIRE: 'a b' }]) {
      let thrown: unknown;
      try {
        configFrom(env, {});
      } catch (error) {
        thrown = error;
      }
      expect(reportOf(thrown), JSON.stringify(env)).toMatchObject({
        code: 'EMQ_CONFIG',
        exitCode: EXIT_USAGE,
      });
    }
  });

  it("ends commander's usage errors with 2, and its help and version with 0", () => {
    const usage = new CommanderError(1, 'commander.unknownOption', "error: unknown option '--x'");
    expect(reportOf(usage)).toEqual({
      code: USAGE_CODE,
      message: "Unknown option '--x'. Run with --help for usage.",
      retryable: false,
      exitCode: EXIT_USAGE,
    });
    const invalid = new InvalidArgumentError('Expected a number.');
    expect(reportOf(invalid).exitCode).toBe(EXIT_USAGE);
    expect(reportOf(new CommanderError(0, 'commander.version', '0.1.0')).exitCode).toBe(EXIT_OK);
    expect(reportOf(new CommanderError(0, 'commander.helpDisplayed', '')).exitCode).toBe(EXIT_OK);
    // `emq` or `emq fence` alone: commander shows the help as the error.
    expect(reportOf(new CommanderError(1, 'commander.help', '(outputHelp)'))).toMatchObject({
      message: 'A command is missing: run with --help for the commands.',
      exitCode: EXIT_USAGE,
    });
  });

  it("keeps a CLI failure's own code and exit code: 1 unless it is a usage failure", () => {
    expect(reportOf(new CliFailure('EMQ_JOB_NOT_FOUND', 'none'))).toEqual({
      code: 'EMQ_JOB_NOT_FOUND',
      message: 'none',
      retryable: false,
      exitCode: EXIT_FAILED,
    });
    expect(reportOf(usageFailure('bad'))).toEqual({
      code: USAGE_CODE,
      message: 'bad',
      retryable: false,
      exitCode: EXIT_USAGE,
    });
  });

  it("classifies a raw failure instead of echoing the server's text: exit 1", () => {
    const report = reportOf(new Error('ECONNREFUSED 10.0.0.7:6379'));
    expect(report.code).toBe('EMQ_UNKNOWN');
    expect(report.message).not.toContain('10.0.0.7');
    expect(report.exitCode).toBe(EXIT_FAILED);
  });

  it('says the exit codes in help with the constants it exits with', () => {
    expect(exitCodesText()).toBe(
      `Exit codes: ${EXIT_OK} ok, ${EXIT_FAILED} refused or failed, ${EXIT_USAGE} usage.`,
    );
    expect([EXIT_OK, EXIT_FAILED, EXIT_USAGE]).toEqual([0, 1, 2]);
  });
});

describe('CLI failure reports', () => {
  it('keeps the retryable flag of the outcome', () => {
    expect(reportOf(new UnavailableError('u')).retryable).toBe(true);
    expect(reportOf(new ConflictError('EMQ_CONFLICT', 'c')).retryable).toBe(false);
  });

  it('does not label a fence mismatch retryable: an operator must act on it', () => {
    expect(reportOf(new FenceError('f')).retryable).toBe(false);
    expect(reportOf(new FenceError('f')).code).toBe('EMQWIRE');
  });
});
