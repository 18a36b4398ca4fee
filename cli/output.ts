/**
 * How a command's result and failures reach the streams: one JSON line with `--json`, plain
 * text otherwise. Failures go to stderr in text mode and to stdout as `{"error": ...}` in
 * JSON mode, so a script reads one stream and branches on the exit code.
 */
import { EXIT_OK, type ExitCode, type FailureReport } from './failures.js';
import type { Io } from './io.js';

export interface CommandResult {
  /** What `--json` prints, as one line. */
  readonly json: unknown;
  /** What plain mode prints on stdout: lines of text, or raw bytes. */
  readonly text: string | Uint8Array;
  /** A plain-mode remark for the operator, on stderr so piped output stays clean. Default: none. */
  readonly note?: string | undefined;
  /** Default 0. A result can still fail (a fence that does not match exits 1). */
  readonly exitCode?: ExitCode | undefined;
}

/** The `--json` flag every command takes. */
export interface OutputFlags {
  /** Print one JSON line instead of text. Default false. */
  readonly json?: boolean | undefined;
}

export function printResult(io: Io, flags: OutputFlags, result: CommandResult): ExitCode {
  if (flags.json === true) {
    io.out(`${JSON.stringify(result.json)}\n`);
  } else {
    if (typeof result.text !== 'string' || result.text.length > 0) io.out(result.text);
    if (result.note !== undefined) io.err(`${result.note}\n`);
  }
  return result.exitCode ?? EXIT_OK;
}

export function printFailure(io: Io, flags: OutputFlags, failure: FailureReport): ExitCode {
  const { code, message, retryable } = failure;
  if (flags.json === true) {
    io.out(`${JSON.stringify({ error: { code, message, retryable } })}\n`);
  } else {
    io.err(`emq: ${code}: ${message}${retryable ? ' (retryable)' : ''}\n`);
  }
  return failure.exitCode;
}

/** Aligned `name  value` lines. */
export function table(rows: ReadonlyArray<readonly [string, string]>): string {
  const width = Math.max(0, ...rows.map(([name]) => name.length));
  return rows.map(([name, value]) => `${name.padEnd(width)}  ${value}\n`).join('');
}
