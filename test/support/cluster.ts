import { join } from 'node:path';
import { Cluster, type ClusterOptions } from 'iovalkey';
import { ClientSet } from './clients.js';
import { createCluster } from './cluster-create.js';
import { viewOf } from './cluster-health.js';
import { isLivePrimary, parseClusterNodes } from './cluster-nodes.js';
import { freePorts } from './ports.js';
import { stringReply } from './probe.js';
import type { ValkeyServer } from './server.js';
import { type ArgsFor, launchSpec, replicationAuth } from './server-args.js';
import { startAll } from './start-all.js';
import type { Auth, ClusterHandle, ClusterStartOptions, ServerHandle } from './types.js';
import { waitFor } from './wait.js';

const DEFAULT_NODE_TIMEOUT_MS = 2_000;
const DEFAULT_READY_TIMEOUT_MS = 60_000;

class ValkeyCluster implements ClusterHandle {
  readonly kind = 'cluster';
  readonly nodes: readonly ValkeyServer[];
  readonly seeds: readonly string[];
  readonly #auth: Auth | undefined;
  readonly #clients = new ClientSet<Cluster>();

  constructor(nodes: readonly ValkeyServer[], auth: Auth | undefined) {
    this.nodes = nodes;
    this.seeds = nodes.map((node) => node.url);
    this.#auth = auth;
  }

  /** The nodes serving slots now, as a running node sees it: failover moves this role. */
  async primaries(): Promise<ServerHandle[]> {
    const witness = this.nodes.find((node) => node.running);
    if (witness === undefined) throw new Error('no node of the cluster is running');
    const text = await witness.probe((connection) =>
      stringReply(connection.call('CLUSTER', 'NODES')),
    );
    const ports = new Set(
      parseClusterNodes(text)
        .filter(isLivePrimary)
        .map((entry) => entry.port),
    );
    return this.nodes.filter((node) => node.running && ports.has(node.port));
  }

  async clusterClient(options: ClusterOptions = {}): Promise<Cluster> {
    const client = new Cluster(
      this.nodes.map((node) => ({ host: node.host, port: node.port })),
      {
        ...options,
        lazyConnect: true,
        redisOptions: {
          username: this.#auth?.username,
          password: this.#auth?.password,
          ...options.redisOptions,
        },
      },
    );
    return this.#clients.connect(client);
  }

  /** Every running node: state ok, all slots served, all nodes known, replicas linked, one slot map. */
  waitForHealthy(timeoutMs = DEFAULT_READY_TIMEOUT_MS): Promise<void> {
    return waitFor('the cluster to be healthy on every node', timeoutMs, async () => {
      const running = this.nodes.filter((node) => node.running);
      const views = await Promise.all(running.map((node) => viewOf(node, this.nodes.length)));
      const problem = views.find((view) => view.problem !== undefined)?.problem;
      if (problem !== undefined) return problem;
      if (new Set(views.map((view) => view.ownership)).size > 1)
        return 'nodes disagree on slot owners';
      return undefined;
    });
  }

  async stop(): Promise<void> {
    this.#clients.disconnectAll();
    await Promise.all(this.nodes.map((node) => node.stop()));
  }
}

/** `primaries` (default 3) × (1 + `replicasPerPrimary`, default 0) nodes, returned healthy. */
export async function startCluster(options: ClusterStartOptions = {}): Promise<ClusterHandle> {
  const primaries = options.primaries ?? 3;
  const replicasPerPrimary = options.replicasPerPrimary ?? 0;
  const clusterArgs: ArgsFor = (_port, dir) => [
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    join(dir, 'nodes.conf'),
    '--cluster-node-timeout',
    String(options.nodeTimeoutMs ?? DEFAULT_NODE_TIMEOUT_MS),
    ...replicationAuth(options.auth),
  ];
  const ports = await freePorts(primaries * (1 + replicasPerPrimary), { clusterBus: true });
  const nodes = await startAll(
    ports.map((port) => launchSpec(options, clusterArgs, { clusterBus: true, port })),
  );
  const cluster = new ValkeyCluster(nodes, options.auth);
  try {
    await createCluster(nodes, replicasPerPrimary, options.auth);
    await cluster.waitForHealthy(options.readyTimeoutMs);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}
