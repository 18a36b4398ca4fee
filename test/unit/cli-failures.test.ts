// What the CLI prints and exits with for each kind of failure (0 ok, 1 refused/failed, 2 usage).
import { describe, expect, it } from 'vitest';
import { CliFailure, EXIT_FAILED, EXIT_USAGE, reportOf } from '../../cli/failures.js';
import {
  ConfigError,
  ConflictError,
  FenceError,
  InvalidInputError,
  RefusedError,
  UnavailableError,
} from '../../src/index.js';

describe('CLI failure reports', () => {
  it('treats malformed input and settings as usage: exit 2', () => {
    for (const error of [
      new InvalidInputError('EMQ_INVALID_QUEUE', 'q'),
      new InvalidInputError('EMQ_INVALID_ID', 'id'),
      new InvalidInputError('EMQ_INVALID_REQUEST', 'key'),
      new ConfigError('EMQ_URL is invalid'),
    ]) {
      expect(reportOf(error).exitCode, error.code).toBe(EXIT_USAGE);
    }
  });

  it('treats a payload over the limit as a refusal: exit 1', () => {
    const report = reportOf(new InvalidInputError('EMQ_PAYLOAD_TOO_LARGE', 'big'));
    expect(report).toEqual({
      code: 'EMQ_PAYLOAD_TOO_LARGE',
      message: 'big',
      retryable: false,
      exitCode: EXIT_FAILED,
    });
  });

  it('treats conflicts, refusals and retryable outcomes as failures: exit 1', () => {
    for (const error of [
      new ConflictError('EMQ_CONFLICT', 'c'),
      new RefusedError('EMQKIND', 'k'),
      new FenceError('f'),
      new UnavailableError('u'),
    ]) {
      expect(reportOf(error).exitCode, error.code).toBe(EXIT_FAILED);
    }
  });

  it('keeps the retryable flag of the outcome', () => {
    expect(reportOf(new UnavailableError('u')).retryable).toBe(true);
    expect(reportOf(new ConflictError('EMQ_CONFLICT', 'c')).retryable).toBe(false);
  });

  it('does not label a fence mismatch retryable: an operator must act on it', () => {
    expect(reportOf(new FenceError('f')).retryable).toBe(false);
    expect(reportOf(new FenceError('f')).code).toBe('EMQWIRE');
  });

  it("classifies a raw server error instead of echoing the server's text", () => {
    const report = reportOf(new Error('ECONNREFUSED 10.0.0.7:6379'));
    expect(report.code).toBe('EMQ_UNKNOWN');
    expect(report.message).not.toContain('10.0.0.7');
  });

  it("keeps a CLI failure's own code and exit code", () => {
    const report = reportOf(new CliFailure('EMQ_JOB_NOT_FOUND', 'none'));
    expect(report).toEqual({
      code: 'EMQ_JOB_NOT_FOUND',
      message: 'none',
      retryable: false,
      exitCode: EXIT_FAILED,
    });
  });
});
