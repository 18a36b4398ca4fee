/**
 * Exit codes and what the CLI prints when a command does not succeed. Scripts branch on the
 * exit code and the printed `code`, so both are stable: 0 ok, 1 refused or failed, 2 usage.
 */
import { CommanderError } from 'commander';
import { ConfigError, classifyFailure, EmqError, InvalidInputError } from '../src/index.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export type ExitCode = typeof EXIT_OK | typeof EXIT_FAILED | typeof EXIT_USAGE;

/** A failure the CLI itself detects (a job that is not there, an unreadable file). */
export class CliFailure extends Error {
  constructor(
    /** A stable, upper-case code in the style of the EmqError codes. */
    readonly code: string,
    message: string,
    /** The exit code this failure ends the command with. */
    readonly exitCode: ExitCode = EXIT_FAILED,
    /** Whether running the same command again may succeed. */
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'CliFailure';
  }
}

/** What a failure shows the operator: never a stack, a cause, or a server's own text. */
export interface FailureReport {
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
  readonly exitCode: ExitCode;
}

/** Codes an operator must act on, whatever a function would do with them. */
const OPERATOR_FAULTS: ReadonlySet<string> = new Set(['EMQWIRE']);

/** Turns anything a command threw into the code, message and exit code the CLI prints. */
export function reportOf(error: unknown): FailureReport {
  if (error instanceof CliFailure) {
    const { code, message, retryable, exitCode } = error;
    return { code, message, retryable, exitCode };
  }
  const emq = error instanceof EmqError ? error : classifyFailure(error);
  return {
    code: emq.code,
    message: emq.message,
    // A fence mismatch is retryable for a function (a deploy is installing it); to an
    // operator at a shell it is a fault to fix, not to wait out.
    retryable: emq.retryable && !OPERATOR_FAULTS.has(emq.code),
    exitCode: isUsage(emq) ? EXIT_USAGE : EXIT_FAILED,
  };
}

/** The exit code for commander's own outcomes: help and version are fine, the rest is usage. */
export function exitCodeOfCommander(error: CommanderError): ExitCode {
  return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
}

export function isCommanderError(error: unknown): error is CommanderError {
  return error instanceof CommanderError;
}

// A malformed argument or setting is the command line's fault: nothing was attempted. A payload
// over the limit was read and refused by policy, so it counts as a refusal.
function isUsage(error: EmqError): boolean {
  if (error instanceof ConfigError) return true;
  return error instanceof InvalidInputError && error.code !== 'EMQ_PAYLOAD_TOO_LARGE';
}
