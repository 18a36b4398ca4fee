/**
 * Renews the password (an IAM token) of an open connection's client, for ElastiCache IAM auth:
 * every later connect or reconnect, of the client and of every cluster node, AUTHs with the
 * new one, and every connected node re-authenticates now, which also restarts ElastiCache's
 * 12-hour limit on IAM-authenticated connections.
 *
 * Depends on iovalkey internals; written against iovalkey 0.4.0: a Redis client reads
 * `options.password` at each connect; a Cluster builds new node clients from
 * `options.redisOptions` (the object its connection pool shares) and keeps one client per node.
 */
import { Cluster, type Valkey } from 'iovalkey';
import type { Connection } from './connector.js';

interface WithPassword {
  options: { password?: string | undefined; redisOptions?: { password?: string | undefined } };
}

function isCluster(client: Valkey | Cluster): client is Cluster {
  return client instanceof Cluster;
}

/** Every later connection of `client` authenticates with `password`. */
export function setClientPassword(client: Valkey | Cluster, password: string): void {
  const internals = client as unknown as WithPassword;
  if (isCluster(client)) {
    const shared = internals.options.redisOptions;
    if (shared !== undefined) shared.password = password;
    for (const node of client.nodes('all')) {
      (node as unknown as WithPassword).options.password = password;
    }
  } else {
    internals.options.password = password;
  }
}

/** Sets the new password and AUTHs every ready connection with it; rejects if one refuses. */
export async function renewClientPassword(
  client: Valkey | Cluster,
  username: string | undefined,
  password: string,
): Promise<void> {
  setClientPassword(client, password);
  const connections = isCluster(client) ? client.nodes('all') : [client];
  await Promise.all(
    connections
      .filter((connection) => connection.status === 'ready')
      .map((connection) =>
        username === undefined ? connection.auth(password) : connection.auth(username, password),
      ),
  );
}

/**
 * Moves an open connection onto a new password (an IAM token): every later connect or
 * reconnect uses it and every ready connection re-authenticates with it. Rejects if a server
 * refuses it; the caller then opens a new connection with it.
 */
export function renewCredentials(
  connection: Connection,
  username: string | undefined,
  password: string,
): Promise<void> {
  return renewClientPassword(connection.client, username, password);
}

/**
 * Not serving now, by iovalkey's public status: the client itself not ready (with the offline
 * queue off it refuses commands until it is), or a primary's connection down waiting to retry.
 * A cluster node never used yet is `wait`: it connects on demand.
 */
export function reconnecting(connection: Connection): boolean {
  const down = (status: string) =>
    status === 'reconnecting' || status === 'end' || status === 'close';
  return (
    connection.client.status !== 'ready' || connection.primaries().some((node) => down(node.status))
  );
}
