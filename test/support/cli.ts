/**
 * Runs the built `emq` bundle as a user would: a child process, its exit code and its output.
 * The EMQ_* variables of the test process are dropped, so each test says exactly what it sets.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/cli/emq/index.mjs', import.meta.url));

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stdoutBytes: Buffer;
  readonly stderr: string;
}

export interface CliOptions {
  /** EMQ_* (and other) variables for this run. Default: none. */
  readonly env?: Readonly<Record<string, string>>;
  /** Bytes on stdin. Default: an empty stdin. */
  readonly input?: string | Buffer;
}

/** Fails the file up front when the bundle is missing, instead of in every test. */
export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first.`);
}

export function emq(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('EMQ_')),
  );
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  child.stdin.end(options.input ?? '');
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const stdoutBytes = Buffer.concat(out);
      resolve({
        code,
        stdout: stdoutBytes.toString('utf8'),
        stdoutBytes,
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
}

/** A stack trace's frame line, which the CLI must never print. */
export const STACK_FRAME = /^\s+at\s/m;
