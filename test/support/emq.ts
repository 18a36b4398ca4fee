// Connections to harness servers through the package's own connector, closed after each file.
import { afterAll, beforeAll } from 'vitest';
import { type Connection, type ConnectOptions, connect } from '../../src/index.js';
import { installFenceEverywhere } from './fence-ready.js';
import { startCluster, startStandalone } from './servers.js';
import type { ClusterHandle, ServerHandle } from './types.js';

const open = new Set<Connection>();

afterAll(async () => {
  await Promise.all([...open].map((connection) => connection.close()));
  open.clear();
});

/** Connects to a harness server or cluster; closed automatically when the file ends. */
export async function connectTo(
  target: ServerHandle | ClusterHandle,
  options: ConnectOptions = {},
): Promise<Connection> {
  const connection = await connect({
    ...(target.kind === 'cluster'
      ? { urls: target.seeds, cluster: true }
      : { urls: [target.url], cluster: false }),
    ...options,
  });
  open.add(connection);
  return connection;
}

/** Ids of the rows and pending members of a queue, to count jobs after a test. */
export async function jobsOf(
  connection: Connection,
  queue: string,
): Promise<{ rows: string[]; pending: string[] }> {
  const prefix = `emq:{${queue}}:job:`;
  const client = connection.client;
  const nodes = 'nodes' in client ? client.nodes('master') : [client];
  const rows: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      rows.push(...keys.map((key) => key.slice(prefix.length)));
    } while (cursor !== '0');
  }
  const pending = await client.zrange(`emq:{${queue}}:pending`, 0, -1);
  return { rows: rows.sort(), pending: pending.sort() };
}

/** A standalone server that loads the module and holds the fence: ready for native writes. */
export async function startFencedServer(): Promise<ServerHandle> {
  const server = await startStandalone({ module: true });
  await installFenceEverywhere(server);
  return server;
}

export interface FencedServers {
  readonly standalone: ServerHandle;
  readonly cluster: ClusterHandle;
}

/**
 * Starts, for the file's tests, a standalone server and a 3-primary cluster that load the
 * module and hold the fence; hands them to `use` and stops them when the file ends.
 */
export function withFencedServers(use: (servers: FencedServers) => void): void {
  let started: FencedServers | undefined;
  beforeAll(async () => {
    const [standalone, cluster] = await Promise.all([
      startFencedServer(),
      startCluster({ module: true }),
    ]);
    started = { standalone, cluster };
    await installFenceEverywhere(cluster);
    use(started);
  });
  afterAll(async () => {
    await Promise.all([started?.standalone.stop(), started?.cluster.stop()]);
  });
}
