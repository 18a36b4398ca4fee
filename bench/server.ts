/**
 * The bench's own valkey-server with the reference module. The test harness registers
 * vitest hooks on import, so the bench, which runs as a plain Node bundle, starts its server
 * here, on the launcher the harness and the local stack share (scripts/valkey/: the chosen
 * Valkey from EMQ_VALKEY_BIN, the death guard, the free-port probe, the readiness wait), with
 * the harness's flags: loopback, nothing persisted, the module with wire `1` (or no module).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HOST_MODULE } from '../module/artifacts.js';
import { freePort, LOOPBACK } from '../scripts/valkey/ports.js';
import { infoField, withProbe } from '../scripts/valkey/probe.js';
import { waitUntilServing } from '../scripts/valkey/ready.js';
import { spawnValkey } from '../scripts/valkey/spawn.js';
import { waitFor } from '../scripts/valkey/wait.js';

export { LOOPBACK };

const START_TIMEOUT_MS = 30_000;
const TERM_GRACE_MS = 5_000;

export interface BenchServer {
  readonly port: number;
  readonly url: string;
  /** The server's pid, to tell its CPU from the bench's. */
  readonly pid: number;
  stop(): Promise<void>;
}

export interface ServerOptions {
  /** Starts a replica of the server on this port, and waits until its link is up. */
  readonly replicaOf?: number;
  /**
   * Loads the EchoMQ module. Default `true`. Without it the server is what ElastiCache and
   * MemoryDB run: the function and script families write HSET and ZADD themselves there.
   */
  readonly module?: boolean;
  /** Configuration directives, e.g. `['--hash-max-listpack-value', '1024']`. */
  readonly config?: readonly string[];
}

export async function startServer(root: string, options: ServerOptions = {}): Promise<BenchServer> {
  const modulePath = resolve(root, HOST_MODULE);
  const withModule = options.module ?? true;
  if (withModule && !existsSync(modulePath)) {
    throw new Error(`${modulePath} is missing: run \`npm run build:module\` first.`);
  }
  const port = await freePort();
  // Its own directory: whatever the server writes (a full sync's snapshot) stays out of the tree.
  const dir = mkdtempSync(join(tmpdir(), 'emq-bench-'));
  const args = [
    ...['--dir', dir],
    ...['--port', String(port), '--bind', LOOPBACK, '--save', '', '--appendonly', 'no'],
    ...['--protected-mode', 'no', '--daemonize', 'no'],
    ...(withModule ? ['--loadmodule', modulePath, 'wire', '1'] : []),
    ...(options.config ?? []),
    // A replica loads the primary's snapshot from the socket.
    ...(options.replicaOf === undefined
      ? []
      : ['--replicaof', LOOPBACK, String(options.replicaOf), '--repl-diskless-load', 'swapdb']),
  ];
  const child = spawnValkey('valkey-server', args, { stdio: 'ignore' });
  const exited = new Promise<string>((done) => {
    child.once('exit', (code, signal) =>
      done(signal ? `killed by ${signal}` : `exit code ${code}`),
    );
    child.once('error', (error) => done(`not started: ${error.message}`));
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  try {
    await waitUntilServing(port, {
      timeoutMs: START_TIMEOUT_MS,
      exited,
      what: `valkey-server on port ${port} (is valkey-server installed?)`,
      pid: child.pid,
    });
    // A replica serves the bench only once its link to the primary is up (a full sync done).
    if (options.replicaOf !== undefined) {
      await waitFor(`the replica on port ${port} to link to its primary`, START_TIMEOUT_MS, () =>
        withProbe(port, undefined, async (connection) =>
          infoField(await connection.info('replication'), 'master_link_status') === 'up'
            ? undefined
            : 'link not up',
        ),
      );
    }
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  // The server's own pid: under the death guard or a wrapper script the child is not it.
  const pid = await withProbe(port, undefined, async (connection) =>
    Number(infoField(await connection.info('server'), 'process_id') ?? 0),
  );
  return {
    port,
    url: `redis://${LOOPBACK}:${port}`,
    pid,
    stop: async () => {
      process.off('exit', killOnExit);
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(TERM_GRACE_MS).then(() => child.kill('SIGKILL'))]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
