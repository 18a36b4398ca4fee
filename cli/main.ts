/** The process around the program: real streams in, an exit code out, never a stack trace. */
import { EXIT_FAILED, EXIT_OK, type ExitCode } from './failures.js';
import { processIo } from './io.js';
import { printFailure } from './output.js';
import { run, wantsJson } from './program.js';

export async function main(): Promise<never> {
  // `emq pending q | head -1`: the reader leaving early is not a failure worth a stack trace;
  // an output that cannot be written (a full disk) can only end the command.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      process.exit(error.code === 'EPIPE' ? EXIT_OK : EXIT_FAILED);
    });
  }
  const io = processIo();
  const args = process.argv.slice(2);
  // Every failure a command can meet is printed by the command; this is a bug in the CLI,
  // still printed the way the command line asked for (JSON on stdout with --json).
  const unexpected = () =>
    printFailure(
      io,
      { json: wantsJson(args) },
      {
        code: 'EMQ_UNKNOWN',
        message: 'The CLI failed unexpectedly; please report it.',
        retryable: false,
        exitCode: EXIT_FAILED,
      },
    );
  // A command left waiting on something that can no longer happen (nothing is pending in the
  // event loop) would otherwise end with Node's own exit 13 and a screen of the bundle's code.
  process.once('beforeExit', () => void exitWith(unexpected()));
  let code: ExitCode;
  try {
    code = await run(args, io);
  } catch {
    code = unexpected();
  }
  return exitWith(code);
}

/**
 * Exits as soon as the output is out: after a failed connect iovalkey keeps a timer alive for
 * about two seconds, which a one-shot command should not wait for.
 */
async function exitWith(code: ExitCode): Promise<never> {
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}

function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}
