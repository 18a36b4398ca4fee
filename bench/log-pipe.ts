/**
 * The faces write their log lines to stdout, as Lambda's runtime expects, and Lambda's stdout
 * is a pipe another process reads. The bench gives them the same: it runs itself again as a
 * child whose stdout is a pipe this process drains (counting the bytes, discarding them), so
 * every line's write is a real write(2) into a pipe, in the measured process. The report goes
 * to stderr, which stays the terminal.
 */
import { spawn } from 'node:child_process';

/** The flag that marks the child, whose stdout is already the pipe. */
const CHILD_FLAG = '--stdout-piped';

/** True in the child: go on and measure. */
export function stdoutIsPiped(argv: readonly string[]): boolean {
  return argv.includes(CHILD_FLAG);
}

/**
 * Runs this script again with its stdout piped to us; resolves with the child's exit code
 * once it has exited and the pipe is drained.
 */
export function runWithPipedStdout(progress: (line: string) => void): Promise<number> {
  const [script, ...args] = process.argv.slice(1);
  if (script === undefined) return Promise.resolve(1);
  const child = spawn(process.execPath, [...process.execArgv, script, ...args, CHILD_FLAG], {
    stdio: ['inherit', 'pipe', 'inherit'],
  });
  let bytes = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
  });
  return new Promise((done) => {
    child.once('close', (code) => {
      progress(`the faces wrote ${bytes} bytes of log lines into the pipe`);
      done(code ?? 1);
    });
  });
}
