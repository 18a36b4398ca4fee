/** Talks to a local node through valkey-cli, which ships with the server, for probes and setup. */
import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { LOOPBACK } from './ports.js';

const run = promisify(execFile);

/** Runs one command on the node at `port` and returns its reply text. */
export async function ask(port: number, ...command: string[]): Promise<string> {
  const { stdout } = await run('valkey-cli', ['-h', LOOPBACK, '-p', String(port), ...command], {
    timeout: 10_000,
  });
  return stdout.trim();
}

/**
 * Polls until `ready` holds for the node's reply to `command`, or fails after `timeoutMs`
 * (or as soon as `gone` resolves: the process died).
 */
export async function waitFor(
  port: number,
  command: readonly string[],
  ready: (reply: string) => boolean,
  options: { readonly timeoutMs: number; readonly gone: Promise<string>; readonly what: string },
): Promise<void> {
  let died: string | undefined;
  void options.gone.then((how) => {
    died = how;
  });
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (died !== undefined)
      throw new Error(`${options.what} exited (${died}) before it was ready.`);
    const reply = await ask(port, ...command).catch(() => '');
    if (ready(reply)) return;
    if (Date.now() > deadline)
      throw new Error(`${options.what} was not ready after ${options.timeoutMs} ms.`);
    await sleep(100);
  }
}

/** Joins the nodes into a cluster: valkey-cli splits the slots between them. */
export async function createCluster(ports: readonly number[]): Promise<void> {
  await run(
    'valkey-cli',
    [
      '--cluster',
      'create',
      ...ports.map((port) => `${LOOPBACK}:${port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ],
    { timeout: 60_000 },
  );
}
