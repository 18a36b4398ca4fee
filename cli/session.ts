/**
 * One run of the program: the streams, and the exit code the command that ran left behind.
 * Every command's action goes through `run`, and every error of the command line itself
 * through `refused`, so printing and exit codes live in one place.
 */
import type { CommanderError } from 'commander';
import { EXIT_OK, type ExitCode, reportOf } from './failures.js';
import type { Io } from './io.js';
import { type CommandResult, type OutputFlags, printFailure, printResult } from './output.js';

export class Session {
  exitCode: ExitCode = EXIT_OK;

  constructor(readonly io: Io) {}

  /** Runs a command's body and prints its result or its failure. */
  async run(flags: OutputFlags, body: () => Promise<CommandResult>): Promise<void> {
    try {
      this.exitCode = printResult(this.io, flags, await body());
    } catch (error) {
      this.exitCode = printFailure(this.io, flags, reportOf(error));
    }
  }

  /**
   * Commander's own outcome (help, version, or a usage error it found before any action
   * ran). In text mode commander has printed it already; with --json it printed nothing
   * (see program.ts), and a usage error is printed here like any other failure.
   */
  refused(error: CommanderError, flags: OutputFlags): ExitCode {
    const report = reportOf(error);
    this.exitCode =
      report.exitCode !== EXIT_OK && flags.json === true
        ? printFailure(this.io, flags, report)
        : report.exitCode;
    return this.exitCode;
  }
}
