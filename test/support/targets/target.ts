/**
 * A started target (start-target.ts): what a client needs (the proxies' URLs, the CA, the
 * users' passwords) and what the harness needs (its own calls to each node over the node's
 * unix socket, with the profile's renames applied; digests and snapshots of the dataset; the
 * nodes themselves, to kill or restart; the record of what the product sent).
 */
import { Cluster, Valkey } from 'iovalkey';
import type { ConnectOptions } from '../../../src/index.js';
import { ClientSet } from '../clients.js';
import { viewOf } from '../cluster-health.js';
import { isLivePrimary, parseClusterNodes } from '../cluster-nodes.js';
import { stringReply } from '../probe.js';
import type { ValkeyServer } from '../server.js';
import type { Auth } from '../types.js';
import { waitFor } from '../wait.js';
import type { TargetCertificates } from './certs.js';
import { type CommandLog, fullName } from './command-log.js';
import type { TargetProxy } from './proxy.js';
import { type RawSession, rawSession } from './raw-session.js';
import type { ResolvedProfile } from './resolve-profile.js';
import type { KnownCommands } from './valkey-commands.js';

const DEFAULT_READY_TIMEOUT_MS = 60_000;

export interface TargetNode {
  /** The valkey-server (kill, restart, logs); the harness reaches it over its unix socket. */
  readonly server: ValkeyServer;
  /** The node's proxy: the only way clients reach the node. */
  readonly proxy: TargetProxy;
  /** What clients connect to: `rediss://127.0.0.1:<proxy port>` (`redis://` without TLS). */
  readonly url: string;
}

export class Target {
  readonly resolved: ResolvedProfile;
  readonly nodes: readonly TargetNode[];
  /** Every node's client URL (the cluster seeds, or the one server's). */
  readonly urls: readonly string[];
  readonly cluster: boolean;
  /** The CA that signed the servers' certificate (PEM) and its file; undefined without TLS. */
  readonly tls: { readonly ca: Buffer; readonly caFile: string } | undefined;
  /** The harness's own credentials (direct node access only: never give them to the product). */
  readonly admin: Required<Auth>;
  /** The password of every user the target was started with, by name. */
  readonly passwords: ReadonlyMap<string, string>;
  /** What clients sent through the proxies since the last reset. */
  readonly commands: CommandLog;
  /** What the nodes know (COMMAND INFO, the module's commands included, renamed ones not). */
  readonly known: KnownCommands;
  readonly #cleanup: () => Promise<void>;
  readonly #clients = new ClientSet<Valkey | Cluster>();
  readonly #sessions = new Set<RawSession>();

  constructor(parts: {
    readonly resolved: ResolvedProfile;
    readonly nodes: readonly TargetNode[];
    readonly certificates: TargetCertificates | undefined;
    readonly admin: Required<Auth>;
    readonly passwords: ReadonlyMap<string, string>;
    readonly commands: CommandLog;
    readonly known: KnownCommands;
    readonly cleanup: () => Promise<void>;
  }) {
    this.resolved = parts.resolved;
    this.nodes = parts.nodes;
    this.urls = parts.nodes.map((node) => node.url);
    this.cluster = parts.resolved.cluster;
    this.tls =
      parts.certificates === undefined
        ? undefined
        : { ca: parts.certificates.ca, caFile: parts.certificates.caFile };
    this.admin = parts.admin;
    this.passwords = parts.passwords;
    this.commands = parts.commands;
    this.known = parts.known;
    this.#cleanup = parts.cleanup;
  }

  get name(): string {
    return this.resolved.name;
  }

  /** Options for src's connect() as `user` (a started user; default: no AUTH). */
  connectOptions(user?: string): ConnectOptions {
    const password = user === undefined ? undefined : this.passwords.get(user);
    if (user !== undefined && password === undefined)
      throw new Error(`${this.name} has no user ${user}`);
    return {
      urls: [...(this.cluster ? this.urls : this.urls.slice(0, 1))],
      cluster: this.cluster,
      ...(this.tls === undefined ? {} : { tls: { ca: this.tls.ca } }),
      ...(user === undefined ? {} : { username: user, password }),
    };
  }

  /**
   * An iovalkey client through the proxies, as `user` (default: no AUTH), a cluster client on
   * a cluster: for tests that act as a client would. Disconnected when the target stops.
   */
  client(user?: string): Promise<Valkey | Cluster> {
    const { urls, tls, username, password } = this.connectOptions(user);
    const node = {
      username,
      password,
      tls: tls === undefined ? undefined : { ...tls },
      lazyConnect: true,
    };
    const seeds = (urls ?? []).map((url) => ({
      host: new URL(url).hostname,
      port: Number(new URL(url).port),
    }));
    const client = this.cluster
      ? new Cluster(seeds, {
          lazyConnect: true,
          redisOptions: node,
          // Certificates name 127.0.0.1: keep the addresses the slot map gives.
          dnsLookup: (address, callback) => callback(null, address),
        })
      : new Valkey({ ...node, ...seeds[0] });
    client.on('error', () => {});
    return this.#clients.connect(client);
  }

  /** A raw RESP session to `node`'s proxy as `user` (default: no AUTH); closed when the target stops. */
  async session(node: TargetNode, user?: string): Promise<RawSession> {
    const password = user === undefined ? undefined : this.passwords.get(user);
    if (user !== undefined && password === undefined)
      throw new Error(`${this.name} has no user ${user}`);
    const session = await rawSession(node.proxy.port, {
      ...(this.tls === undefined ? {} : { ca: this.tls.ca }),
      ...(user === undefined ? {} : { user, password }),
    });
    this.#sessions.add(session);
    return session;
  }

  /** The name to send for `command` (the harness's own name where the profile renamed it). */
  command(command: string): string {
    const renamed = this.resolved.renames.find(([from]) => from === command.toLowerCase())?.[1];
    if (renamed === '') throw new Error(`${this.name} has no ${command}, not even for the harness`);
    return renamed ?? command;
  }

  /** Runs one command as the harness on `node`, over its unix socket, renames applied. */
  call(node: TargetNode, command: string, ...args: string[]): Promise<unknown> {
    return node.server.probe((connection) => connection.call(this.command(command), ...args));
  }

  /** A harness connection to `node` (over its socket); closed when the node stops. */
  adminClient(node: TargetNode): Promise<Valkey> {
    return node.server.client();
  }

  /** The nodes serving slots now (failover moves this), or the one server. */
  async primaries(): Promise<TargetNode[]> {
    if (!this.cluster) return [...this.nodes];
    const witness = this.nodes.find((node) => node.server.running);
    if (witness === undefined) throw new Error(`no node of ${this.name} is running`);
    const text = await witness.server.probe((c) => stringReply(c.call('CLUSTER', 'NODES')));
    // Nodes announce their proxy's port: that is how CLUSTER NODES names them.
    const ports = new Set(
      parseClusterNodes(text)
        .filter(isLivePrimary)
        .map((entry) => entry.port),
    );
    return this.nodes.filter((node) => node.server.running && ports.has(node.proxy.port));
  }

  /**
   * DEBUG DIGEST of every current primary, by its URL: equal digests before and after mean
   * the dataset is byte-for-byte unchanged.
   */
  async digest(): Promise<Map<string, string>> {
    const primaries = await this.primaries();
    const digests = await Promise.all(
      primaries.map(
        async (node) => [node.url, String(await this.call(node, 'DEBUG', 'DIGEST'))] as const,
      ),
    );
    return new Map(digests);
  }

  /** Every key of every primary with its DUMP (hex) and PTTL: a dataset a failure can show. */
  async snapshot(): Promise<Map<string, string>> {
    const snapshot = new Map<string, string>();
    for (const node of await this.primaries()) {
      await node.server.probe(async (connection) => {
        let cursor = '0';
        do {
          const [next, keys] = await connection.scan(cursor, 'COUNT', 1000);
          cursor = next;
          for (const key of keys) {
            const [dump, ttl] = await Promise.all([
              connection.dumpBuffer(key),
              connection.pttl(key),
            ]);
            snapshot.set(key, `${dump?.toString('hex') ?? 'gone'} pttl=${ttl}`);
          }
        } while (cursor !== '0');
      });
    }
    return new Map([...snapshot].sort(([a], [b]) => (a < b ? -1 : 1)));
  }

  /** Whether the target offers `command` (with `subcommand`) to the product. */
  supports(command: string, subcommand?: string): boolean {
    const name = command.toLowerCase();
    const full = fullName({ command: name, subcommand: subcommand?.toLowerCase() });
    const { unavailable, supported } = this.resolved;
    if (unavailable.has(name) || unavailable.has(full)) return false;
    if (!this.known.names.has(full)) return false;
    return supported === undefined || supported.has(full);
  }

  /** Every running node: cluster ok, every slot served, every node known, replicas linked. */
  waitForHealthy(timeoutMs = DEFAULT_READY_TIMEOUT_MS): Promise<void> {
    if (!this.cluster) return Promise.resolve();
    return waitFor(`${this.name} to be healthy on every node`, timeoutMs, async () => {
      const running = this.nodes.filter((node) => node.server.running);
      const views = await Promise.all(
        running.map((node) => viewOf(node.server, this.nodes.length)),
      );
      const problem = views.find((view) => view.problem !== undefined)?.problem;
      if (problem !== undefined) return problem;
      return new Set(views.map((view) => view.ownership)).size > 1
        ? 'nodes disagree on slot owners'
        : undefined;
    });
  }

  async stop(): Promise<void> {
    this.#clients.disconnectAll();
    for (const session of this.#sessions) session.close();
    await this.#cleanup();
  }
}
