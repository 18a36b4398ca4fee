// Runs the self-managed cluster's node scripts (infra/cache/selfmanaged/scripts) as the EC2 nodes
// would, but unprivileged on loopback: EMQ_SYSTEM=0 (no packages, no volume, no systemd), one
// temp folder per node, the stand-in `aws` CLI for Secrets Manager and S3, and a local HTTP
// endpoint in place of the CloudFormation wait condition URL.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Valkey } from 'iovalkey';
import { valkeyBinary } from '../../../scripts/valkey/binaries.js';
import { INSTALLER_RULES_NATIVE } from '../../../src/families/access-rules.js';
import { alive } from '../../support/alive.js';
import { freePorts, LOOPBACK, MODULE_PATH } from '../../support/servers.js';

export const SCRIPTS_DIR = fileURLToPath(
  new URL('../../../infra/cache/selfmanaged/scripts/', import.meta.url),
);
const FAKE_AWS = fileURLToPath(new URL('./aws', import.meta.url));

export const ADMIN = { username: 'emq-admin', password: 'admin-password-for-tests' };
export const APP = { username: 'emq-app', password: 'app-password-for-tests' };
export const INSTALLER = { username: 'emq-installer', password: 'installer-password-for-tests' };
const SECRET_IDS = {
  admin: 'admin-secret',
  app: 'app-secret',
  installer: 'installer-secret',
  tls: 'tls-secret',
} as const;

export type NodeScript = 'bootstrap.sh' | 'cluster-create.sh' | 'fence-guard.sh' | 'emq-cli.sh';

export interface ScriptRun {
  readonly code: number;
  /** The scripts log to stderr; kept for failure messages. */
  readonly log: string;
}

/** The JSON body the wait condition received, as CloudFormation would store it. */
export interface WaitConditionSignal {
  readonly Status: string;
  readonly Reason: string;
  readonly UniqueId: string;
  readonly Data: string;
}

export interface LocalNodesOptions {
  readonly shards: number;
  readonly replicas: number;
  /** The functions' ACL rules. */
  readonly accessString: string;
  readonly wire?: string;
}

/** What the user data of every node did: bootstrap.sh everywhere, then cluster-create.sh on node 0. */
export interface Launch {
  readonly nodes: LocalNodes;
  readonly boots: readonly ScriptRun[];
  readonly creation: ScriptRun;
}

export class LocalNodes {
  readonly seeds: string[];

  private constructor(
    readonly dir: string,
    readonly ports: readonly number[],
    /** What reached the wait condition URL, in order. */
    readonly signals: readonly WaitConditionSignal[],
    private readonly signalServer: Server,
    private readonly baseEnv: Readonly<Record<string, string>>,
  ) {
    this.seeds = ports.map((port) => `rediss://${LOOPBACK}:${port}`);
  }

  private static async create(options: LocalNodesOptions): Promise<LocalNodes> {
    const count = options.shards * (options.replicas + 1);
    const ports = await freePorts(count, { clusterBus: true });
    const dir = mkdtempSync(join(tmpdir(), 'emq-selfmanaged-'));
    const aws = join(dir, 'aws');
    mkdirSync(join(aws, 'secrets'), { recursive: true });
    mkdirSync(join(aws, 's3', 'assets'), { recursive: true });
    copyFileSync(MODULE_PATH, join(aws, 's3', 'assets', 'emq.so'));
    writeFileSync(join(aws, 'secrets', `${SECRET_IDS.admin}.json`), JSON.stringify(ADMIN));
    writeFileSync(join(aws, 'secrets', `${SECRET_IDS.app}.json`), JSON.stringify(APP));
    writeFileSync(join(aws, 'secrets', `${SECRET_IDS.installer}.json`), JSON.stringify(INSTALLER));
    // What CloudFormation creates: a TLS secret that node 0 fills on first boot.
    writeFileSync(join(aws, 'secrets', `${SECRET_IDS.tls}.json`), '{}');

    const signals: WaitConditionSignal[] = [];
    const signalServer = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        signals.push(JSON.parse(Buffer.concat(chunks).toString()) as WaitConditionSignal);
        response.end();
      });
    });
    await new Promise<void>((resolve) => signalServer.listen(0, LOOPBACK, resolve));
    const address = signalServer.address();
    const signalPort = typeof address === 'object' && address !== null ? address.port : 0;

    return new LocalNodes(dir, ports, signals, signalServer, {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      // The Valkey the run uses (EMQ_VALKEY_BIN, else PATH), as the scripts' own variables.
      VALKEY_SERVER: valkeyBinary('valkey-server'),
      VALKEY_CLI: valkeyBinary('valkey-cli'),
      EMQ_SYSTEM: '0',
      AWS_CLI: FAKE_AWS,
      FAKE_AWS_DIR: aws,
      EMQ_NODES: ports.map((port) => `${LOOPBACK}:${port}`).join(' '),
      EMQ_SHARDS: String(options.shards),
      EMQ_REPLICAS: String(options.replicas),
      EMQ_WIRE: options.wire ?? '1',
      EMQ_MODULE_URI: 's3://assets/emq.so',
      EMQ_APP_SECRET_ARN: SECRET_IDS.app,
      EMQ_ADMIN_SECRET_ARN: SECRET_IDS.admin,
      EMQ_TLS_SECRET_ARN: SECRET_IDS.tls,
      EMQ_ACCESS_STRING: options.accessString,
      EMQ_INSTALLER_SECRET_ARN: SECRET_IDS.installer,
      EMQ_INSTALLER_ACCESS_STRING: INSTALLER_RULES_NATIVE,
      EMQ_SIGNAL_URL: `http://${LOOPBACK}:${signalPort}/wait-condition?X-Amz-Signature=stand-in`,
      // Small servers and a short node timeout; generous waits, the machine is shared.
      EMQ_MAXMEMORY: '64mb',
      EMQ_NODE_TIMEOUT_MS: '2000',
      EMQ_WAIT_SECONDS: '60',
      EMQ_START_SECONDS: '60',
    });
  }

  /**
   * Boots every node at once (instances boot in any order; node 0 makes the TLS material the
   * others wait for), then creates the cluster from node 0. Free ports are chosen seconds
   * before the servers bind them, and other test processes on the machine open sockets too:
   * when a server found its address taken, the whole launch starts again on new ports.
   */
  static async launch(options: LocalNodesOptions, attempts = 3): Promise<Launch> {
    for (let attempt = 1; ; attempt++) {
      const nodes = await LocalNodes.create(options);
      const boots = await Promise.all(
        nodes.ports.map((_, index) => nodes.run('bootstrap.sh', index)),
      );
      const creation = boots.every((run) => run.code === 0)
        ? await nodes.run('cluster-create.sh', 0)
        : { code: -1, log: 'not run: a bootstrap failed' };
      if (creation.code === 0 || attempt >= attempts || !nodes.lostAPort()) {
        return { nodes, boots, creation };
      }
      await nodes.stop();
    }
  }

  /** The last lines of every server's log, for a failure message. */
  serverLogTails(lines = 8): string {
    return this.ports
      .map((_, index) => {
        let log: string;
        try {
          log = this.file(index, 'run', 'valkey.log');
        } catch {
          log = '(no log)';
        }
        return `node ${index}:\n${log.trimEnd().split('\n').slice(-lines).join('\n')}`;
      })
      .join('\n');
  }

  /** A server could not bind its port or bus port. */
  private lostAPort(): boolean {
    return this.ports.some((_, index) => {
      try {
        return /Address already in use/.test(this.file(index, 'run', 'valkey.log'));
      } catch {
        return false;
      }
    });
  }

  /** The settings one node's user data would write, with this test's folders. */
  env(index: number): Record<string, string> {
    return {
      ...this.baseEnv,
      EMQ_NODE_INDEX: String(index),
      EMQ_CONF_DIR: join(this.dir, `node${index}`, 'conf'),
      EMQ_DATA_DIR: join(this.dir, `node${index}`, 'data'),
      EMQ_RUN_DIR: join(this.dir, `node${index}`, 'run'),
    };
  }

  run(script: NodeScript, index: number, args: readonly string[] = []): Promise<ScriptRun> {
    return new Promise((resolve) => {
      execFile(
        'bash',
        [join(SCRIPTS_DIR, script), ...args],
        { env: this.env(index), timeout: 120_000 },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
          resolve({ code, log: `${stdout}${stderr}` });
        },
      );
    });
  }

  /** The CA node 0 published in the TLS secret. */
  ca(): string {
    const { ca } = this.secret('tls') as { ca: string };
    return ca;
  }

  /** A secret's value as the stand-in Secrets Manager holds it. */
  secret(name: keyof typeof SECRET_IDS): unknown {
    const file = join(this.dir, 'aws', 'secrets', `${SECRET_IDS[name]}.json`);
    return JSON.parse(readFileSync(file, 'utf8'));
  }

  /** Every call the stand-in AWS CLI received, one per line (no values). */
  awsCalls(): string[] {
    return readFileSync(join(this.dir, 'aws', 'calls.log'), 'utf8')
      .trim()
      .split('\n');
  }

  file(index: number, ...path: string[]): string {
    return readFileSync(join(this.dir, `node${index}`, ...path), 'utf8');
  }

  /** A TLS client of one node as the admin user (the caller quits it). */
  admin(index: number): Valkey {
    return new Valkey({
      host: LOOPBACK,
      port: this.ports[index],
      username: ADMIN.username,
      password: ADMIN.password,
      tls: { ca: this.ca() },
      lazyConnect: true,
      maxRetriesPerRequest: 1,
    });
  }

  /** Kills one node's server at once, as a lost instance would vanish, and waits until it is gone. */
  async crash(index: number): Promise<void> {
    const pid = Number(this.file(index, 'run', 'valkey.pid').trim());
    signal(pid, 'SIGKILL');
    while (alive(pid)) await sleep(50);
  }

  /** Empties one node's data folder, as a new data volume would be. */
  wipeData(index: number): void {
    const data = join(this.dir, `node${index}`, 'data');
    rmSync(data, { recursive: true, force: true });
    mkdirSync(data);
  }

  /** Stops every server the scripts started (they run in the background: found by their pid files). */
  async stop(): Promise<void> {
    const pids = this.ports.flatMap((_, index) => {
      try {
        return [Number(this.file(index, 'run', 'valkey.pid').trim())];
      } catch {
        return [];
      }
    });
    for (const pid of pids) signal(pid, 'SIGTERM');
    const deadline = Date.now() + 15_000;
    while (pids.some(alive) && Date.now() < deadline) await sleep(100);
    for (const pid of pids.filter(alive)) signal(pid, 'SIGKILL');
    await new Promise<void>((resolve) => this.signalServer.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {}
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
