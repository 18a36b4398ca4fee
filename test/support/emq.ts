// Connections to harness servers through the package's own connector, closed after each file.
import { afterAll, beforeAll } from 'vitest';
import type { AdmissionTarget } from '../../src/admission/admission.js';
import { type Config, type Connection, type ConnectOptions, connect } from '../../src/index.js';
import { type KeyNamespace, recordHash, recordSlotKeys } from '../../src/keyspace/keyspace.js';
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

/** An admission over an open connection with some settings changed, as a face's container holds one. */
export function admissionOf(connection: Connection, config: Partial<Config> = {}): AdmissionTarget {
  return { config: { ...connection.config, ...config }, connection: async () => connection };
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

/** An idempotency record as docs/wire.md lays it out: the id it names, the digest, its expiry. */
export interface RecordSeen {
  readonly id: string;
  readonly digest: string;
  readonly expiresAt: number;
  /** The record slot (0 to 3) it lives in. */
  readonly slot: number;
}

/** The live or dead record of a key, read from its queue's four slots; null when there is none. */
export async function recordOf(
  connection: Connection,
  queue: string,
  namespace: KeyNamespace,
  key: string,
): Promise<RecordSeen | null> {
  const field = recordHash(namespace, key).slice(0, 22);
  const slots = recordSlotKeys(queue);
  for (const [slot, name] of slots.entries()) {
    const value = await connection.client.hget(name, field);
    if (value === null) continue;
    const [id = '', digest = '', expiry = ''] = value.split(':');
    return { id, digest, expiresAt: Number(expiry), slot };
  }
  return null;
}

/** A standalone server that loads the module and holds the fence: ready for native writes. */
/**
 * How many job rows of `queue` the servers hold (every primary that may hold it), counted by
 * harness connections of their own: a container's connection may be the one under test.
 */
export async function jobRowsOn(servers: readonly ServerHandle[], queue: string): Promise<number> {
  const counts = await Promise.all(
    servers.map(async (server) => {
      const client = await server.client();
      try {
        return (await client.keys(`emq:{${queue}}:job:*`)).length;
      } finally {
        client.disconnect();
      }
    }),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

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
