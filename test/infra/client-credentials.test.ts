// Renewing an open client's password on a real valkey-server whose user's password changes:
// reconnects use the new one, and open connections re-authenticate with it.
import { Cluster, type Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newClient } from '../../src/connection/clients.js';
import { renewClientPassword, setClientPassword } from '../../src/connection/credentials.js';
import { configure } from '../../src/settings/config.js';
import { ADMIN, usersWithAdmin } from '../support/admin-user.js';
import {
  type ClusterHandle,
  type ServerHandle,
  startCluster,
  startStandalone,
} from '../support/servers.js';
import { waitFor } from '../support/wait.js';

const USER = 'emq-iam';
const userArgs = usersWithAdmin([USER, 'on', '>token-1', '~*', '+@all']);

/** A client as the connector builds it, connected as USER with `password`. */
async function clientOf(urls: readonly string[], password: string): Promise<Valkey | Cluster> {
  const client = newClient(
    configure({ urls: [...urls], cluster: urls.length > 1, username: USER, password }),
    undefined,
  );
  await client.connect();
  return client;
}

/** Replaces every password of the user: the old token stops opening connections. */
async function rotate(admin: Valkey, next: string): Promise<void> {
  await admin.call('ACL', 'SETUSER', USER, 'resetpass', `>${next}`);
}

describe('a standalone client', () => {
  let server: ServerHandle;
  let admin: Valkey;
  beforeAll(async () => {
    server = await startStandalone({ auth: ADMIN, extraArgs: userArgs });
    admin = await server.client();
  });
  afterAll(async () => {
    admin.disconnect();
    await server.stop();
  });

  it('reconnects with the password set last, not the one it opened with', async () => {
    const client = await clientOf([server.url], 'token-1');
    try {
      expect(await client.call('ACL', 'WHOAMI')).toBe(USER);
      let reconnects = 0;
      client.on('reconnecting', () => {
        reconnects += 1;
      });
      await rotate(admin, 'token-2');
      setClientPassword(client, 'token-2');
      await admin.call('CLIENT', 'KILL', 'USER', USER);
      await waitFor('the client to reconnect with token-2', 30_000, async () => {
        const answer = await client.ping().catch((error: Error) => error.message);
        return answer === 'PONG' ? undefined : answer;
      });
      expect(reconnects).toBeGreaterThanOrEqual(1);
      expect(await client.call('ACL', 'WHOAMI')).toBe(USER);
    } finally {
      client.disconnect();
    }
  });

  it('re-authenticates an open connection with the new password, and fails loudly with a wrong one', async () => {
    const client = await clientOf([server.url], 'token-2');
    try {
      await rotate(admin, 'token-3');
      await renewClientPassword(client, USER, 'token-3');
      expect(await client.call('ACL', 'WHOAMI')).toBe(USER);
      await expect(renewClientPassword(client, USER, 'token-stale')).rejects.toThrow(/WRONGPASS/);
    } finally {
      client.disconnect();
    }
  });
});

describe('a cluster client', () => {
  let cluster: ClusterHandle;
  let admins: Valkey[];
  beforeAll(async () => {
    cluster = await startCluster({ auth: ADMIN, extraArgs: userArgs });
    admins = await Promise.all(cluster.nodes.map((node) => node.client()));
  });
  afterAll(async () => {
    for (const admin of admins) admin.disconnect();
    await cluster.stop();
  });

  it('re-authenticates every node, and rebuilds dropped node connections with the new password', async () => {
    const client = await clientOf(cluster.seeds, 'token-1');
    if (!(client instanceof Cluster)) throw new Error('expected a cluster client');
    try {
      // A key on every primary, so every node connection is open.
      const keys = ['{a}k', '{b}k', '{c}k'];
      for (const key of keys) await client.set(key, 'v');
      const ready = client.nodes('all').filter((node) => node.status === 'ready');
      expect(ready.length).toBeGreaterThanOrEqual(3);

      for (const admin of admins) await rotate(admin, 'token-2');
      await renewClientPassword(client, USER, 'token-2');
      const whoami = await Promise.all(ready.map((node) => node.call('ACL', 'WHOAMI')));
      expect(whoami.every((name) => name === USER)).toBe(true);

      for (const admin of admins) await rotate(admin, 'token-3');
      await renewClientPassword(client, USER, 'token-3');
      for (const admin of admins) await admin.call('CLIENT', 'KILL', 'USER', USER);
      await waitFor('every primary to answer with token-3', 30_000, async () => {
        const answers = await Promise.all(
          keys.map((key) => client.get(key).catch((error: Error) => error.message)),
        );
        return answers.every((answer) => answer === 'v') ? undefined : answers.join(', ');
      });
    } finally {
      client.disconnect();
    }
  });
});
