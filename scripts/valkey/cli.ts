import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { valkeyBinary } from './binaries.js';

const run = promisify(execFile);

/**
 * Runs the chosen Valkey's valkey-cli (EMQ_VALKEY_BIN, else PATH) and returns its stdout. On
 * failure the error carries the command line and both outputs: valkey-cli --cluster prints
 * why it gave up on stdout.
 */
export async function runValkeyCli(args: readonly string[], timeoutMs: number): Promise<string> {
  try {
    const { stdout } = await run(valkeyBinary('valkey-cli'), [...args], { timeout: timeoutMs });
    return stdout;
  } catch (error) {
    const output =
      error instanceof Error && 'stdout' in error
        ? `${String(error.stdout)}\n${'stderr' in error ? String(error.stderr) : ''}`
        : '';
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`valkey-cli ${args.join(' ')} failed: ${reason}\n${output}`);
  }
}

/** `<tool> --version`, through the chosen Valkey. */
export async function valkeyVersionLine(tool: 'valkey-server' | 'valkey-cli'): Promise<string> {
  const { stdout } = await run(valkeyBinary(tool), ['--version'], { timeout: 10_000 });
  return stdout.trim();
}
