/** The process around the program: real streams in, an exit code out, never a stack trace. */
import { EXIT_FAILED, EXIT_OK, type ExitCode } from './failures.js';
import { processIo } from './io.js';
import { run } from './program.js';

export async function main(): Promise<never> {
  // `emq pending q | head -1`: the reader leaving early is not a failure worth a stack trace;
  // an output that cannot be written (a full disk) can only end the command.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      process.exit(error.code === 'EPIPE' ? EXIT_OK : EXIT_FAILED);
    });
  }
  const io = processIo();
  let code: ExitCode;
  try {
    code = await run(process.argv.slice(2), io);
  } catch {
    // Every failure a command can meet is printed by the command; this is a bug in the CLI.
    io.err('emq: EMQ_UNKNOWN: the CLI failed unexpectedly; please report it.\n');
    code = EXIT_FAILED;
  }
  // Exit as soon as the output is out: after a failed connect iovalkey keeps a timer alive
  // for about two seconds, which a one-shot command should not wait for.
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}

function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}
