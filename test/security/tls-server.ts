/**
 * A valkey-server that speaks only TLS (`--port 0 --tls-port <port>`). The harness probes its
 * servers over plain TCP, so this one is started here, on the harness's own process wrapper
 * and registry: it dies with the test worker and is never left behind.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RedisOptions, Valkey } from 'iovalkey';
import { LogRing } from '../support/log-ring.js';
import { moduleArgs } from '../support/module.js';
import { freePort, LOOPBACK } from '../support/ports.js';
import { type Tracked, track, untrack } from '../support/registry.js';
import { ValkeyProcess } from '../support/valkey-process.js';
import type { TestCertificates } from './tls-certs.js';

const START_TIMEOUT_MS = 15_000;
const START_ATTEMPTS = 5;

export interface TlsServer {
  readonly port: number;
  /** `rediss://127.0.0.1:<port>`. */
  readonly url: string;
  /** An admin connection over TLS that trusts the test CA. */
  client(options?: RedisOptions): Promise<Valkey>;
  stop(): Promise<void>;
}

class TlsOnlyServer implements TlsServer, Tracked {
  readonly url: string;
  readonly #clients = new Set<Valkey>();

  constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly process: ValkeyProcess,
    private readonly certificates: TestCertificates,
  ) {
    this.url = `rediss://${LOOPBACK}:${port}`;
  }

  async client(options: RedisOptions = {}): Promise<Valkey> {
    const client = new Valkey({
      host: LOOPBACK,
      port: this.port,
      tls: { ca: this.certificates.ca },
      lazyConnect: true,
      ...options,
    });
    client.on('error', () => {});
    this.#clients.add(client);
    try {
      await client.connect();
    } catch (error) {
      client.disconnect();
      throw error;
    }
    return client;
  }

  async stop(): Promise<void> {
    for (const client of this.#clients) client.disconnect();
    this.#clients.clear();
    this.process.signal('SIGTERM');
    await this.process.exited;
    await rm(this.dir, { recursive: true, force: true });
    untrack(this);
  }

  killNow(): void {
    this.process.signal('SIGKILL');
  }
}

export async function startTlsServer(
  certificates: TestCertificates,
  options: { readonly module?: boolean } = {},
): Promise<TlsServer> {
  for (let attempt = 1; ; attempt++) {
    const dir = await mkdtemp(join(tmpdir(), 'emq-valkey-tls-'));
    const port = await freePort();
    const log = new LogRing();
    const process = new ValkeyProcess(
      [
        '--port',
        '0',
        '--tls-port',
        String(port),
        '--tls-cert-file',
        certificates.certFile,
        '--tls-key-file',
        certificates.keyFile,
        '--tls-ca-cert-file',
        certificates.caFile,
        '--tls-auth-clients',
        'no',
        '--bind',
        LOOPBACK,
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--enable-debug-command',
        'yes',
        ...moduleArgs(options.module ?? false),
      ],
      log,
    );
    const server = new TlsOnlyServer(port, dir, process, certificates);
    track(server);
    const ready = await readiness(server, process);
    if (ready === undefined) return server;
    await server.stop();
    if (!log.includes('Address already in use') || attempt >= START_ATTEMPTS) {
      throw new Error(`TLS valkey-server did not start: ${ready}\n${log.tail()}`);
    }
  }
}

/** Undefined once the server answers PING over TLS, else why not. */
async function readiness(
  server: TlsOnlyServer,
  process: ValkeyProcess,
): Promise<string | undefined> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let reason = 'never probed';
  while (Date.now() < deadline) {
    if (!process.running) return `valkey-server ${process.status}`;
    try {
      const probe = await server.client({
        retryStrategy: () => null,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
        connectTimeout: 1_000,
      });
      const pong = await probe.ping();
      probe.disconnect();
      if (pong === 'PONG') return undefined;
      reason = `PING answered ${pong}`;
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
    await sleep(50);
  }
  return `timed out: ${reason}`;
}
