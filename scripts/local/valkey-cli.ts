/** Talks to a local node through valkey-cli, which ships with the server, for probes and setup. */
import { runValkeyCli } from '../valkey/cli.js';
import { waitFor as waitUntil } from '../valkey/wait.js';
import { LOOPBACK } from './ports.js';

/** Runs one command on the node at `port` and returns its reply text. */
export async function ask(port: number, ...command: string[]): Promise<string> {
  return (await runValkeyCli(['-h', LOOPBACK, '-p', String(port), ...command], 10_000)).trim();
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
  await waitUntil(
    `${options.what} to be ready`,
    options.timeoutMs,
    async () => {
      const reply = await ask(port, ...command);
      return ready(reply) ? undefined : `${command.join(' ')} answered ${reply.slice(0, 200)}`;
    },
    options.gone.then((how) => new Error(`${options.what} exited (${how}) before it was ready.`)),
  );
}

/** Joins the nodes into a cluster: valkey-cli splits the slots between them. */
export async function createCluster(ports: readonly number[]): Promise<void> {
  await runValkeyCli(
    [
      '--cluster',
      'create',
      ...ports.map((port) => `${LOOPBACK}:${port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ],
    60_000,
  );
}
