/**
 * The bench's own valkey-server with the reference module. The test harness registers
 * vitest hooks on import, so the bench, which runs as a plain Node bundle, starts its server
 * here with the harness's flags: loopback, nothing persisted, the module with wire `1`.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Valkey } from 'iovalkey';
import { HOST_MODULE } from '../module/artifacts.js';

export const LOOPBACK = '127.0.0.1';
const START_TIMEOUT_MS = 15_000;

export interface BenchServer {
  readonly port: number;
  readonly url: string;
  /** The server's pid, to tell its CPU from the bench's. */
  readonly pid: number;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen({ port: 0, host: LOOPBACK, exclusive: true }, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => done(port));
    });
  });
}

/** With setpriv the kernel kills the server if the bench dies, even by SIGKILL. */
function deathGuard(): string[] {
  const probe = spawnSync('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore' });
  return probe.status === 0 ? ['setpriv', '--pdeathsig', 'KILL', '--'] : [];
}

export async function startServer(root: string): Promise<BenchServer> {
  const modulePath = resolve(root, HOST_MODULE);
  if (!existsSync(modulePath)) {
    throw new Error(`${modulePath} is missing: run \`npm run build:module\` first.`);
  }
  const port = await freePort();
  const args = [
    ...['--port', String(port), '--bind', LOOPBACK, '--save', '', '--appendonly', 'no'],
    ...['--protected-mode', 'no', '--daemonize', 'no'],
    ...['--loadmodule', modulePath, 'wire', '1'],
  ];
  const [command = 'valkey-server', ...rest] = [...deathGuard(), 'valkey-server', ...args];
  const child: ChildProcess = spawn(command, rest, { stdio: 'ignore' });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  await waitForPing(port, exited);
  const pid = await serverPid(port);
  return {
    port,
    url: `redis://${LOOPBACK}:${port}`,
    pid,
    stop: async () => {
      process.off('exit', killOnExit);
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5_000).then(() => child.kill('SIGKILL'))]);
    },
  };
}

async function waitForPing(port: number, exited: Promise<void>): Promise<void> {
  let dead = false;
  void exited.then(() => {
    dead = true;
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline && !dead) {
    const probe = new Valkey({
      port,
      host: LOOPBACK,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    probe.on('error', () => {});
    try {
      await probe.connect();
      if ((await probe.ping()) === 'PONG') return;
    } catch {
      await sleep(50);
    } finally {
      probe.disconnect();
    }
  }
  throw new Error(`valkey-server on port ${port} did not start (is valkey-server installed?)`);
}

async function serverPid(port: number): Promise<number> {
  const probe = new Valkey({ port, host: LOOPBACK });
  try {
    const info = await probe.info('server');
    return Number(/process_id:(\d+)/.exec(info)?.[1] ?? 0);
  } finally {
    probe.disconnect();
  }
}
