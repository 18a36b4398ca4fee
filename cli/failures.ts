/**
 * Exit codes and what the CLI prints when a command does not succeed. Scripts branch on the
 * exit code and the printed `code`, so both are stable. The rule, written once here:
 *
 *   0  ok.
 *   1  refused or failed: something was attempted (Valkey, SQS, a file, the credentials) and
 *      did not succeed. A setup refusal found at connect is a failure too, even one that is
 *      about configuration (a memory policy that evicts, a missing module, an ACL).
 *   2  usage: the arguments or settings given to the CLI are wrong; nothing was attempted.
 */
import { CommanderError } from 'commander';
import { classifyFailure } from '../src/outcomes/outcome-rules.js';
import { EmqError, InvalidInputError } from '../src/outcomes/outcomes.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export type ExitCode = typeof EXIT_OK | typeof EXIT_FAILED | typeof EXIT_USAGE;

/** The code every usage failure of the command line itself carries. */
export const USAGE_CODE = 'EMQ_USAGE';

/**
 * The exit-code sentence of a help text, from the constants above, so no help can drift from
 * them. `ok` and `failed` say what 0 and 1 mean for one command.
 */
export function exitCodesText(ok = 'ok', failed = 'refused or failed'): string {
  return `Exit codes: ${EXIT_OK} ${ok}, ${EXIT_FAILED} ${failed}, ${EXIT_USAGE} usage.`;
}

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

/** A bad argument, flag or setting, found before anything was attempted: exit 2. */
export function usageFailure(message: string, code: string = USAGE_CODE): CliFailure {
  return new CliFailure(code, message, EXIT_USAGE);
}

/**
 * Runs one of the core's checks on an argument or flag the user gave. Its refusal is usage,
 * with the core's code, and names the argument as the user typed it (`--id: Invalid job
 * id ...`), so the message says which of several values to fix.
 */
export function checkArgument(name: string, check: () => void): void {
  try {
    check();
  } catch (error) {
    if (error instanceof InvalidInputError) {
      throw new CliFailure(error.code, `${name}: ${error.message}`, EXIT_USAGE);
    }
    throw error;
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

/** Turns anything a command or the parser threw into the code, message and exit code. */
export function reportOf(error: unknown): FailureReport {
  if (error instanceof CliFailure) {
    const { code, message, retryable, exitCode } = error;
    return { code, message, retryable, exitCode };
  }
  if (error instanceof CommanderError) {
    return {
      code: USAGE_CODE,
      message: commanderMessage(error),
      retryable: false,
      exitCode: error.exitCode === 0 ? EXIT_OK : EXIT_USAGE,
    };
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

export function isCommanderError(error: unknown): error is CommanderError {
  return error instanceof CommanderError;
}

/**
 * The core throws InvalidInputError only from the checks it runs before any I/O (a queue
 * name, an id, a key), so it is the command line's fault. A payload over the limit was read
 * and refused by policy (EMQ_MAX_PAYLOAD_BYTES), so it counts as a refusal. A ConfigError
 * is not usage here: the settings the CLI was given are checked by `configFrom`, which
 * reports a bad one as usage itself; one that reaches this rule came from a server or the
 * setup at connect.
 */
function isUsage(error: EmqError): boolean {
  return error instanceof InvalidInputError && error.code !== 'EMQ_PAYLOAD_TOO_LARGE';
}

/** Commander's own text, without its "error: " prefix, and a pointer to the help. */
function commanderMessage(error: CommanderError): string {
  // The help itself went to stderr as the "message" of these two: say what was missing.
  if (error.code === 'commander.help' || error.code === 'commander.helpDisplayed') {
    return 'A command is missing: run with --help for the commands.';
  }
  const text = error.message
    .replace(/^error: /, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!]$/.test(text) ? '' : '.'} Run with --help for usage.`;
}
