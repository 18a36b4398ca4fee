// The self-managed cluster's node scripts themselves, run as the nodes' user data runs them
// (bootstrap.sh on every node at once, then cluster-create.sh on node 0), unprivileged on
// loopback: they must leave a working TLS cluster with the module on every node, the wire
// identity on every primary, the functions' user able to enqueue with the native family,
// and a wait condition signal that carries the CA the functions trust.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SELFMANAGED_ACCESS_STRING } from '../../infra/cache/selfmanaged/kind.js';
import { install } from '../../src/connection/fence.js';
import { type Connection, connect, enqueue, loadConfig, readJob } from '../../src/index.js';
import { randomQueue } from '../support/servers.js';
import {
  ADMIN,
  APP,
  INSTALLER,
  LocalNodes,
  type ScriptRun,
} from './selfmanaged-fixtures/local-nodes.js';

const SHARDS = 3;
const REPLICAS = 1;

let nodes: LocalNodes;
let boots: readonly ScriptRun[];
let creation: ScriptRun;
const open: Connection[] = [];

beforeAll(async () => {
  ({ nodes, boots, creation } = await LocalNodes.launch({
    shards: SHARDS,
    replicas: REPLICAS,
    accessString: SELFMANAGED_ACCESS_STRING,
  }));
}, 150_000);

afterAll(async () => {
  await Promise.all(open.map((connection) => connection.close()));
  await nodes?.stop();
}, 30_000);

/** Runs `work` with an admin client of each node, closing them after. */
async function onEveryNode<T>(
  work: (client: ReturnType<LocalNodes['admin']>, index: number) => Promise<T>,
) {
  const clients = nodes.ports.map((_, index) => nodes.admin(index));
  try {
    return await Promise.all(clients.map((client, index) => work(client, index)));
  } finally {
    for (const client of clients) client.disconnect();
  }
}

async function primaries(): Promise<number[]> {
  const roles = await onEveryNode(async (client) => {
    const [role] = (await client.call('ROLE')) as [string];
    return role;
  });
  return roles.flatMap((role, index) => (role === 'master' ? [index] : []));
}

/** Retries `check` until it passes, for what the cluster settles by gossip; then its last failure. */
async function eventually(check: () => Promise<void>, forMs = 20_000): Promise<void> {
  const deadline = Date.now() + forMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** Connects the way a function does: its environment, credentials from its secret. */
async function asFunctions(
  credentials: { username: string; password: string } = APP,
  checkFence = true,
): Promise<Connection> {
  const config = loadConfig({
    EMQ_URL: nodes.seeds.join(','),
    EMQ_CLUSTER: 'true',
    EMQ_EXECUTOR: 'native',
    EMQ_TLS_CA: nodes.signals[0]?.Data ?? '',
  });
  const connection = await connect({ ...config, ...credentials, checkFence });
  open.push(connection);
  return connection;
}

describe('bootstrap.sh and cluster-create.sh', () => {
  it('bring every node up and create the cluster', () => {
    const failures = [...boots, creation].filter((run) => run.code !== 0);
    const servers = failures.length === 0 ? '' : nodes.serverLogTails();
    expect(
      failures.map((run) => run.log),
      servers,
    ).toEqual([]);
  });

  it('make a cluster of 3 shards with one replica each that serves every slot', async () => {
    const infos = await onEveryNode(async (client) => String(await client.call('CLUSTER', 'INFO')));
    for (const info of infos) {
      expect(info).toMatch(/cluster_state:ok/);
      expect(info).toMatch(/cluster_slots_assigned:16384/);
      expect(info).toMatch(/cluster_known_nodes:6/);
      expect(info).toMatch(/cluster_size:3/);
    }
    expect(await primaries()).toEqual([0, 1, 2]);
  });

  it('load the module on every node, with the wire identity as its argument', async () => {
    const modules = await onEveryNode(
      async (client) => (await client.call('MODULE', 'LIST')) as unknown[][],
    );
    for (const list of modules) {
      expect(list).toEqual([expect.arrayContaining(['name', 'emq', 'args', ['wire', '1']])]);
    }
  });

  it('install the wire identity on every primary', async () => {
    const chosen = await primaries();
    const readings = await onEveryNode(async (client, index) =>
      chosen.includes(index) ? ((await client.call('EMQ.WIRE')) as unknown[]) : undefined,
    );
    expect(readings.filter((reading) => reading !== undefined)).toEqual([
      ['1', '1'],
      ['1', '1'],
      ['1', '1'],
    ]);
  });

  it('signal the wait condition once, with success and the CA as base64', () => {
    expect(nodes.signals).toEqual([
      {
        Status: 'SUCCESS',
        Reason: 'cluster ready, wire identity installed',
        UniqueId: 'emq-cluster',
        Data: Buffer.from(nodes.ca()).toString('base64'),
      },
    ]);
  });

  it("let the installer's own user install identity and library on every primary over TLS", async () => {
    const installer = await asFunctions(INSTALLER, false);
    const readings = await install(installer);
    expect(readings.map((reading) => reading.ok)).toEqual([true, true, true]);
  });

  it('let the functions enqueue and read back with the native family over TLS', async () => {
    const connection = await asFunctions();
    expect(connection.family.name).toBe('native');
    const queue = randomQueue('selfmanaged');
    const admitted = await enqueue(connection, { queue, payload: 'hello', idempotencyKey: 'k-1' });
    expect(admitted.status).toBe('enqueued');
    const row = await readJob(connection, queue, admitted.id);
    expect(row?.payload.toString()).toBe('hello');
    expect(row?.state).toBe('pending');
  });

  it("keep the functions' user out of keys beyond the EchoMQ keyspace", async () => {
    const connection = await asFunctions();
    await expect(connection.client.set('not-emq', 'x')).rejects.toThrow(/NOPERM/);
    await expect(connection.client.call('FLUSHALL')).rejects.toThrow(/NOPERM/);
  });

  it('write password hashes only into the ACL files and publish the CA but never its key', () => {
    for (const index of nodes.ports.keys()) {
      const acl = nodes.file(index, 'conf', 'users.acl');
      expect(acl).toMatch(/^user default off /m);
      expect(acl).not.toContain(APP.password);
      expect(acl).not.toContain(INSTALLER.password);
      expect(acl).toMatch(/^user emq-installer on /m);
      expect(acl).not.toContain(ADMIN.password);
    }
    expect(nodes.secret('tls')).toEqual({
      ca: expect.stringContaining('BEGIN CERTIFICATE'),
      cert: expect.stringContaining('BEGIN CERTIFICATE'),
      key: expect.stringContaining('PRIVATE KEY'),
    });
    expect(nodes.ca()).not.toContain('PRIVATE KEY');
  });

  it('change nothing when a node boots again', async () => {
    const ids = await onEveryNode(async (client) => String(await client.call('CLUSTER', 'MYID')));
    const again = await nodes.run('bootstrap.sh', 1);
    const create = await nodes.run('cluster-create.sh', 0);
    expect([again.code, create.code]).toEqual([0, 0]);
    expect(again.log).toMatch(/server already running with these files/);
    expect(create.log).toMatch(/created from this node before/);
    expect(
      await onEveryNode(async (client) => String(await client.call('CLUSTER', 'MYID'))),
    ).toEqual(ids);
    expect(nodes.signals).toHaveLength(1);
  });
});

describe('fence-guard.sh', () => {
  it("puts back a primary's copy of the identity once it is lost", async () => {
    const [primary] = await primaries();
    if (primary === undefined) throw new Error('no primary');
    const client = nodes.admin(primary);
    try {
      // What a restart does to the copy on every primary but the owner of its slot.
      await client.call('FLUSHALL');
      expect(await client.call('EMQ.WIRE')).toEqual(['1', null]);
      const guard = await nodes.run('fence-guard.sh', primary);
      expect(guard.code).toBe(0);
      expect(await client.call('EMQ.WIRE')).toEqual(['1', '1']);
    } finally {
      client.disconnect();
    }
  });

  it('leaves a replica alone', async () => {
    const replica = nodes.ports.findIndex((_, index) => index >= SHARDS);
    const guard = await nodes.run('fence-guard.sh', replica);
    expect(guard).toEqual({ code: 0, log: '' });
  });
});

describe('emq-cli.sh', () => {
  it('lets an operator ask any node as the admin user', async () => {
    const here = await nodes.run('emq-cli.sh', 2, ['CLUSTER', 'INFO']);
    const there = await nodes.run('emq-cli.sh', 2, [`127.0.0.1:${nodes.ports[0]}`, 'ROLE']);
    expect(here).toMatchObject({ code: 0, log: expect.stringContaining('cluster_state:ok') });
    expect(there).toMatchObject({ code: 0, log: expect.stringMatching(/^master\n/) });
  });
});

describe('replacing a node whose data is lost', () => {
  it('joins the new node as a replica of its shard and drops the lost one from every table', async () => {
    const lost = SHARDS + 1;
    const before = nodes.admin(lost);
    const lostId = String(await before.call('CLUSTER', 'MYID'));
    before.disconnect();
    await nodes.crash(lost);
    nodes.wipeData(lost);

    const boot = await nodes.run('bootstrap.sh', lost);
    expect(boot.code, `${boot.log}\n${nodes.serverLogTails(20)}`).toBe(0);
    expect(boot.log).toMatch(/this node replaces a lost one/);

    // Gossip carries the new node to every table within a few cluster ticks.
    await eventually(async () => {
      const tables = await onEveryNode(async (client) =>
        String(await client.call('CLUSTER', 'NODES')),
      );
      for (const table of tables) {
        expect(table).not.toContain(lostId);
        expect(table.trim().split('\n')).toHaveLength(6);
      }
    });
    const replacement = nodes.admin(lost);
    try {
      const [role, primaryHost, primaryPort] = (await replacement.call('ROLE')) as [
        string,
        string,
        number,
      ];
      expect([role, `${primaryHost}:${primaryPort}`]).toEqual([
        'slave',
        nodes.seeds[1]?.replace('rediss://', ''),
      ]);
    } finally {
      replacement.disconnect();
    }
  });
});

describe('cluster-create.sh --fail', () => {
  it('tells the wait condition that node 0 failed, with the reason it was given', async () => {
    const run = await nodes.run('cluster-create.sh', 0, ['--fail', 'bootstrap failed on node 0']);
    expect(run.code).toBe(1);
    expect(nodes.signals.at(-1)).toEqual({
      Status: 'FAILURE',
      Reason: 'bootstrap failed on node 0',
      UniqueId: 'emq-cluster',
      Data: '',
    });
  });
});
