/**
 * Renews the password (an IAM token) of an open connection's client, for ElastiCache IAM auth:
 * every later connect or reconnect, of the client and of every cluster node, authenticates with
 * the new one (its credential source, authenticating-connector.ts), and every connected node
 * re-authenticates now, which also restarts ElastiCache's 12-hour limit on IAM-authenticated
 * connections.
 */
import { Cluster, type Valkey } from 'iovalkey';
import type { CredentialSource } from './authenticating-connector.js';
import type { Connection } from './connector.js';

const sources = new WeakMap<Valkey | Cluster, CredentialSource>();

/** Records where `client`'s connects read their credentials (clients.ts, when it builds one). */
export function attachCredentials(client: Valkey | Cluster, source: CredentialSource): void {
  sources.set(client, source);
}

/**
 * True once a server refused the credentials `connection` holds (on a reconnect, or a cluster
 * node's connect): every later connect of it fails the same way, so it must be replaced.
 */
export function loginRefused(connection: Connection): boolean {
  return sources.get(connection.client)?.refused === true;
}

function isCluster(client: Valkey | Cluster): client is Cluster {
  return client instanceof Cluster;
}

/** Every later connection of `client` authenticates with `password`. */
export function setClientPassword(client: Valkey | Cluster, password: string): void {
  const source = sources.get(client);
  if (source === undefined) {
    throw new Error('This client was not opened by the connector: its credentials are fixed.');
  }
  source.setPassword(password);
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
