import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RedisOptions, Valkey } from 'iovalkey';
import { servingState } from '../../scripts/valkey/ready.js';
import { ClientSet } from './clients.js';
import { LogRing } from './log-ring.js';
import { BUS_OFFSET, freePort, isFree, LOOPBACK } from './ports.js';
import { withProbe } from './probe.js';
import { type Tracked, track, untrack } from './registry.js';
import type { ArgsFor } from './server-args.js';
import type { Auth, Role, ServerHandle } from './types.js';
import { ValkeyProcess } from './valkey-process.js';
import { waitFor } from './wait.js';

export interface LaunchSpec {
  readonly argsFor: ArgsFor;
  readonly auth: Auth | undefined;
  readonly clusterBus: boolean;
  readonly startTimeoutMs: number | undefined;
  /** A port chosen ahead (a cluster picks all of its ports together). */
  readonly port?: number;
  /**
   * A unix socket file name inside the data dir that argsFor makes the server listen on: the
   * harness probes and connects through it instead of the TCP port (which may speak only TLS).
   */
  readonly socket?: string;
  /** The scheme of `url`: `rediss` for a server whose port speaks TLS. Default `redis`. */
  readonly scheme?: 'redis' | 'rediss';
}

// An upper bound on a wait for a condition, not a speed check: two cores, shared.
const DEFAULT_START_TIMEOUT_MS = 30_000;
const TERM_GRACE_MS = 5_000;
const START_ATTEMPTS = 5;
// A restart keeps its port (clients and cluster peers know it): how long to wait for it.
const RESTART_PORT_WAIT_MS = 30_000;
const PORT_TAKEN = 'Address already in use';
const ENDS_PROCESS = new Set<NodeJS.Signals>([
  'SIGKILL',
  'SIGTERM',
  'SIGINT',
  'SIGQUIT',
  'SIGABRT',
  'SIGSEGV',
  'SIGBUS',
]);

class PortTaken extends Error {}

/** One valkey-server on a loopback port, with its own data dir, restartable in place. */
export class ValkeyServer implements ServerHandle, Tracked {
  readonly kind = 'server';
  readonly host = LOOPBACK;
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  readonly args: readonly string[];
  /** The unix socket the harness reaches the server through, when the spec names one. */
  readonly socketPath: string | undefined;
  readonly #spec: LaunchSpec;
  readonly #log = new LogRing();
  readonly #clients = new ClientSet<Valkey>();
  #process: ValkeyProcess | undefined;
  #paused = false;
  #stopped = false;

  private constructor(spec: LaunchSpec, port: number, dir: string) {
    this.#spec = spec;
    this.port = port;
    this.url = `${spec.scheme ?? 'redis'}://${LOOPBACK}:${port}`;
    this.dir = dir;
    this.socketPath = spec.socket === undefined ? undefined : join(dir, spec.socket);
    this.args = spec.argsFor(port, dir);
  }

  static async start(spec: LaunchSpec): Promise<ValkeyServer> {
    const dir = await mkdtemp(join(tmpdir(), 'emq-valkey-'));
    let port = spec.port ?? (await freePort({ clusterBus: spec.clusterBus }));
    for (let attempt = 1; ; attempt++) {
      const server = new ValkeyServer(spec, port, dir);
      track(server);
      try {
        await server.#launch();
        return server;
      } catch (error) {
        await server.#terminate();
        untrack(server);
        if (!(error instanceof PortTaken) || attempt >= START_ATTEMPTS) {
          await rm(dir, { recursive: true, force: true });
          throw error;
        }
        // Another process took the port between our probe and the server's bind.
        port = await freePort({ clusterBus: spec.clusterBus });
      }
    }
  }

  get pid(): number | undefined {
    return this.#process?.pid;
  }

  get running(): boolean {
    return this.#process?.running ?? false;
  }

  async client(options: RedisOptions = {}): Promise<Valkey> {
    const client = new Valkey({
      ...(this.socketPath === undefined
        ? { host: this.host, port: this.port }
        : { path: this.socketPath }),
      username: this.#spec.auth?.username,
      password: this.#spec.auth?.password,
      ...options,
      lazyConnect: true,
    });
    return this.#clients.connect(client);
  }

  /** A one-off connection that fails fast, for the harness's own checks. */
  probe<T>(use: (connection: Valkey) => Promise<T>): Promise<T> {
    return withProbe(this.#probeTarget(), this.#spec.auth, use);
  }

  async role(): Promise<Role> {
    const reply = await this.probe((connection) => connection.role());
    if (reply[0] === 'master') return 'primary';
    if (reply[0] === 'slave') return 'replica';
    throw new Error(`${this.url} answered ROLE with ${JSON.stringify(reply)}`);
  }

  /**
   * Sends `signal`; for one that ends the process, resolves once it has exited. The data dir
   * stays, so restart() brings the same server back.
   */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const current = this.#process;
    if (!current?.running) throw new Error(`${this.url} is not running`);
    current.signal(signal);
    if (signal === 'SIGSTOP') this.#paused = true;
    if (signal === 'SIGCONT') this.#paused = false;
    if (!ENDS_PROCESS.has(signal)) return;
    // A stopped process acts on a catchable signal only once it runs again.
    if (this.#paused && signal !== 'SIGKILL') current.signal('SIGCONT');
    await current.exited;
  }

  /** Same port, data dir and args; a running server is shut down (SIGTERM) first. */
  async restart(): Promise<void> {
    if (this.#stopped) throw new Error(`${this.url} was stopped; start a new server instead`);
    await this.#terminate();
    const deadline = Date.now() + RESTART_PORT_WAIT_MS;
    for (;;) {
      // Only this server used the port; wait until the old socket is gone before binding.
      await waitFor(
        `port ${this.port} to be free for the restart`,
        RESTART_PORT_WAIT_MS,
        async () => ((await this.#portsFree()) ? undefined : 'still bound'),
      );
      this.#log.mark('restart');
      try {
        await this.#launch();
        return;
      } catch (error) {
        await this.#terminate();
        if (!(error instanceof PortTaken) || Date.now() >= deadline) throw error;
      }
    }
  }

  async #portsFree(): Promise<boolean> {
    const bus = this.#spec.clusterBus ? await isFree(this.port + BUS_OFFSET) : true;
    return bus && (await isFree(this.port));
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#clients.disconnectAll();
    await this.#terminate();
    await rm(this.dir, { recursive: true, force: true });
    untrack(this);
  }

  killNow(): void {
    this.#process?.signal('SIGKILL');
    try {
      rmSync(this.dir, { recursive: true, force: true });
    } catch {
      // The process may still be writing as it dies; a leftover temp dir is harmless.
    }
  }

  logs(lines = 40): string {
    return this.#log.tail(lines);
  }

  async #launch(): Promise<void> {
    const current = new ValkeyProcess(this.args, this.#log);
    this.#process = current;
    this.#paused = false;
    try {
      await waitFor(
        `${this.url} to answer PING with its data loaded`,
        this.#spec.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
        () => this.#readiness(current.pid),
        current.exited.then(() => new Error(`valkey-server ${current.status}`)),
      );
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const message = `${this.url} did not start: ${reason}\nargs: ${this.args.map((arg) => (arg === '' ? "''" : arg)).join(' ')}\nlast log lines:\n${this.#log.tail()}`;
      throw this.#log.includes(PORT_TAKEN) ? new PortTaken(message) : new Error(message);
    }
  }

  #readiness(pid: number | undefined): Promise<string | undefined> {
    return servingState(this.#probeTarget(), this.#spec.auth, pid);
  }

  #probeTarget(): number | { path: string } {
    return this.socketPath === undefined ? this.port : { path: this.socketPath };
  }

  /** SIGTERM, then SIGKILL after a grace; resolves once the process has exited. */
  async #terminate(): Promise<void> {
    const current = this.#process;
    if (!current?.running) return;
    current.signal('SIGTERM');
    if (this.#paused) current.signal('SIGCONT');
    const grace = new AbortController();
    const exitedInTime = await Promise.race([
      current.exited.then(() => true),
      sleep(TERM_GRACE_MS, false, { signal: grace.signal }).catch(() => false),
    ]);
    grace.abort();
    if (!exitedInTime) {
      current.signal('SIGKILL');
      await current.exited;
    }
  }
}
