/**
 * One run of the program: the streams, and the exit code the command that ran left behind.
 * Every command's action goes through `run`, so printing and exit codes live in one place.
 */
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
}
