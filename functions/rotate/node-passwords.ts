/**
 * A self-managed cluster's side of a rotation: a user's passwords on every node, primaries and
 * replicas alike (ACL users are each node's own; replication copies none). The function runs in
 * the cluster's VPC and connects as the admin user, through the connector every function uses
 * (TLS, authentication before anything else). setSecret gives the user exactly the current and
 * the new password in one `ACL SETUSER` per node (so a password older than both is dropped),
 * then `ACL SAVE` keeps them in the node's ACL file across a restart of the server. A node
 * booting again writes its ACL file from the secret's current password alone (bootstrap.sh).
 * testSecret logs in as the user with each password, on every node.
 */
import type { Valkey } from 'iovalkey';
import type { LoginCredentials } from '../../src/connection/authenticating-connector.js';
import { type ClientTls, newClient } from '../../src/connection/clients.js';
import { connect } from '../../src/connection/connector.js';
import { type Config, configure } from '../../src/settings/config.js';
import { RotationError, type UserPasswords } from './rotation.js';

/** Where the nodes are and who may change their users. */
export interface NodeAccess {
  /** The seeds, cluster mode, TLS and timeouts of the functions' configuration. */
  readonly config: Config;
  readonly tls?: ClientTls | undefined;
  /** The admin user's credentials (its secret, read at each step). */
  admin(): Promise<LoginCredentials>;
}

export function nodePasswords(access: NodeAccess): UserPasswords {
  return {
    async set(userId, passwords) {
      const admin = await access.admin();
      for (const url of await nodeUrls(access, admin)) {
        await onNode(access, url, admin, async (node) => {
          await node.call('ACL', 'SETUSER', userId, 'resetpass', ...passwords.map((p) => `>${p}`));
          await node.call('ACL', 'SAVE');
        });
      }
    },
    async applied(userId, passwords) {
      for (const url of await nodeUrls(access, await access.admin())) {
        for (const password of passwords) {
          const loggedIn = await onNode(access, url, { username: userId, password }, async () => {})
            .then(() => true)
            .catch(() => false);
          if (!loggedIn) {
            throw new RotationError(
              `A node refuses the user's ${password === passwords.at(-1) ? 'new' : 'current'} password (or cannot be reached); setSecret runs again on the next attempt.`,
            );
          }
        }
      }
      // ACL SETUSER applies at once: nothing to wait for.
      return undefined;
    },
  };
}

/**
 * Every node the cluster knows, primaries and replicas, as its own view lists them (CLUSTER
 * NODES), or the one server. A node listed but not reachable (failed, restarting) fails the
 * step that opens it: it would come back without the new password.
 */
async function nodeUrls(access: NodeAccess, admin: LoginCredentials): Promise<string[]> {
  const { config } = access;
  if (!config.cluster) return [...config.urls];
  const connection = await connect({ ...config, ...admin, tls: access.tls, checkFence: false });
  try {
    const scheme = config.urls[0]?.startsWith('rediss:') === true ? 'rediss:' : 'redis:';
    return listedNodes(String(await connection.client.call('CLUSTER', 'NODES'))).map(
      (address) => `${scheme}//${address}`,
    );
  } finally {
    await connection.close();
  }
}

/** `host:port` of every node in CLUSTER NODES that has an address (a node without one is gone). */
export function listedNodes(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim().split(' '))
    .filter(([, address, flags]) => address !== undefined && !/noaddr|handshake/.test(flags ?? ''))
    .map(([, address]) => (address as string).split('@')[0] as string);
}

/**
 * A connection of its own to one node as `login`, through the connector every function uses:
 * it opens only once the node accepted the login, and `step` runs on it.
 */
async function onNode(
  access: NodeAccess,
  url: string,
  login: LoginCredentials,
  step: (node: Valkey) => Promise<void>,
): Promise<void> {
  const config = configure({
    ...access.config,
    urls: [url],
    cluster: false,
    username: login.username,
    password: login.password,
    secretArn: undefined,
  });
  const client = newClient(config, access.tls) as Valkey;
  client.on('error', () => {});
  try {
    await client.connect();
    await step(client);
  } finally {
    client.disconnect();
  }
}
