/** The process around the program: real streams in, an exit code out, never a stack trace. */
import { EXIT_FAILED } from './failures.js';
import { processIo } from './io.js';
import { run } from './program.js';

export async function main(): Promise<void> {
  const io = processIo();
  try {
    process.exitCode = await run(process.argv.slice(2), io);
  } catch {
    // Every failure a command can meet is printed by the command; this is a bug in the CLI.
    io.err('emq: EMQ_UNKNOWN: the CLI failed unexpectedly; please report it.\n');
    process.exitCode = EXIT_FAILED;
  }
}
