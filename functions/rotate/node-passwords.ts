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
import { Cluster, type Valkey } from 'iovalkey';
import { type ClientTls, newClient } from '../../src/connection/clients.js';
import type { Connection } from '../../src/connection/connector.js';
import { type Config, configure } from '../../src/settings/config.js';
import { RotationError, type UserPasswords } from './rotation.js';

/** Where the nodes are and how the admin connection is opened. */
export interface NodeAccess {
  /** The seeds, cluster mode, TLS and timeouts of the functions' configuration. */
  readonly config: Config;
  readonly tls?: ClientTls | undefined;
  /** A connection as the admin user (connect with checkFence false). */
  open(): Promise<Connection>;
}

export function nodePasswords(access: NodeAccess): UserPasswords {
  return {
    async set(userId, passwords) {
      await onEveryNode(access, async (node) => {
        await node.call('ACL', 'SETUSER', userId, 'resetpass', ...passwords.map((p) => `>${p}`));
        await node.call('ACL', 'SAVE');
      });
    },
    async applied(userId, passwords) {
      const addresses = await onEveryNode(access, async () => {});
      for (const address of addresses) {
        for (const password of passwords) {
          if (!(await logsIn(access, address, userId, password))) {
            throw new RotationError(
              `A node refuses the user's ${password === passwords.at(-1) ? 'new' : 'current'} password; setSecret runs again on the next attempt.`,
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
 * Runs `step` on every node the cluster knows (its own view, CLUSTER NODES), and answers
 * their addresses. A node the cluster lists but the admin cannot reach (a failed one, one
 * restarting) fails the step: it would come back without the new password.
 */
async function onEveryNode(
  access: NodeAccess,
  step: (node: Valkey) => Promise<void>,
): Promise<string[]> {
  const connection = await access.open();
  try {
    const client = connection.client;
    if (!(client instanceof Cluster)) {
      await step(client);
      return [...access.config.urls];
    }
    const reached = new Map(
      client.nodes('all').map((node) => [`${node.options.host}:${node.options.port}`, node]),
    );
    const listed = listedNodes(String(await client.call('CLUSTER', 'NODES')));
    const missing = listed.filter((address) => !reached.has(address)).length;
    if (missing > 0) {
      throw new RotationError(
        `${missing} node(s) of the cluster cannot be reached now; the next attempt tries again.`,
      );
    }
    for (const node of reached.values()) await step(node);
    return [...reached.keys()].map((address) => `${schemeOf(access.config)}//${address}`);
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

function schemeOf(config: Config): string {
  return config.urls[0]?.startsWith('rediss:') === true ? 'rediss:' : 'redis:';
}

/** A connection of its own to one node as the user: the connector's AUTH succeeds or not. */
async function logsIn(
  access: NodeAccess,
  url: string,
  username: string,
  password: string,
): Promise<boolean> {
  const config = configure({
    ...access.config,
    urls: [url],
    cluster: false,
    username,
    password,
    secretArn: undefined,
  });
  const client = newClient(config, access.tls);
  client.on('error', () => {});
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
