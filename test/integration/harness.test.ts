import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { valkeyVersionLine } from '../../scripts/valkey/cli.js';
import { wireKey } from '../../src/keyspace/keyspace.js';
import { alive } from '../support/alive.js';
import { installFenceEverywhere } from '../support/fence-ready.js';
import { moduleArgs } from '../support/module.js';
import {
  digestOf,
  freePorts,
  randomQueue,
  startCluster,
  startReplicated,
  startStandalone,
} from '../support/servers.js';

/** Where the kernel's ephemeral (outgoing) ports start on this machine. */
function ephemeralStart(): number {
  try {
    return Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    );
  } catch {
    return 32_768;
  }
}

describe('test harness', () => {
  it('starts a standalone server and stop() leaves neither process nor data dir', async () => {
    const server = await startStandalone();
    const pid = server.pid;
    expect(pid).toBeTypeOf('number');
    const client = await server.client();
    expect(await client.ping()).toBe('PONG');
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    await server.stop();
    expect(alive(pid ?? 0)).toBe(false);
    expect(existsSync(server.dir)).toBe(false);
    expect(client.status).toBe('end');
  });

  it('replicates a write on the primary to the replica', async () => {
    const pair = await startReplicated();
    try {
      const primary = await pair.primary.client();
      const [replicaNode] = pair.replicas;
      if (replicaNode === undefined) throw new Error('no replica started');
      const replica = await replicaNode.client();
      await primary.set('harness:replicated', 'yes');
      expect(await primary.call('WAIT', '1', '5000')).toBe(1);
      expect(await replica.get('harness:replicated')).toBe('yes');
      expect(await replicaNode.role()).toBe('replica');
    } finally {
      await pair.stop();
    }
  });

  it('forms a 3-primary cluster that a cluster client reads and writes', async () => {
    const cluster = await startCluster();
    try {
      expect(cluster.nodes).toHaveLength(3);
      for (const node of cluster.nodes) {
        const client = await node.client();
        const info = await client.call('CLUSTER', 'INFO');
        expect(info).toContain('cluster_state:ok');
        expect(info).toContain('cluster_slots_ok:16384');
        client.disconnect();
      }
      const client = await cluster.clusterClient();
      const before = await digestOf(cluster);
      expect([...before.keys()].sort()).toEqual([...cluster.seeds].sort());
      const key = `emq:{${randomQueue()}}:pending`;
      await client.set(key, 'v');
      expect(await client.get(key)).toBe('v');
      const after = await digestOf(cluster);
      const changed = [...after].filter(([url, digest]) => before.get(url) !== digest);
      expect(changed).toHaveLength(1);
    } finally {
      await cluster.stop();
    }
  });

  it('keeps an AOF-synced key across SIGKILL and restart on the same port', async () => {
    const server = await startStandalone({
      extraArgs: ['--appendonly', 'yes', '--appendfsync', 'always'],
    });
    try {
      const writer = await server.client();
      await writer.set('harness:durable', 'kept');
      writer.disconnect();
      const digest = await digestOf(server);
      const pid = server.pid ?? 0;
      await server.kill('SIGKILL');
      expect(alive(pid)).toBe(false);
      expect(server.running).toBe(false);
      await server.restart();
      expect(server.pid).not.toBe(pid);
      const reader = await server.client();
      expect(await reader.get('harness:durable')).toBe('kept');
      expect(await digestOf(server)).toBe(digest);
    } finally {
      await server.stop();
    }
  });

  it('names every queue differently, within the queue-name rule', () => {
    const names = Array.from({ length: 100 }, () => randomQueue('harness'));
    expect(new Set(names).size).toBe(100);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9._-]{1,64}$/);
  });

  it('asks for the module build when emq.so is missing', () => {
    expect(() => moduleArgs(true, join(tmpdir(), 'no-such-dir', 'emq.so'))).toThrow(
      'npm run build:module',
    );
  });

  it('loads the emq module with its wire identity', async () => {
    const server = await startStandalone({ module: { wire: '7' } });
    try {
      const client = await server.client();
      const modules = JSON.stringify(await client.call('MODULE', 'LIST'));
      expect(modules).toContain('emq');
    } finally {
      await server.stop();
    }
  });

  it('runs the Valkey that EMQ_VALKEY_BIN names (else PATH)', async () => {
    const chosen = /\bv=(\S+)/.exec(await valkeyVersionLine('valkey-server'))?.[1];
    const server = await startStandalone();
    try {
      const client = await server.client();
      expect(String(await client.info('server'))).toContain(`valkey_version:${chosen}\r\n`);
    } finally {
      await server.stop();
    }
  });

  it('draws server and bus ports below the ephemeral range other connections take theirs from', async () => {
    const start = ephemeralStart();
    const ports = await freePorts(20, { clusterBus: true });
    expect(new Set(ports).size).toBe(20);
    for (const port of ports) expect(port + 10_000).toBeLessThan(start);
    const server = await startStandalone();
    try {
      expect(server.port).toBeLessThan(start);
    } finally {
      await server.stop();
    }
  });

  it('hands out a module cluster whose replicas already hold the fence when it returns', async () => {
    const cluster = await startCluster({ module: true, replicasPerPrimary: 1 });
    try {
      await installFenceEverywhere(cluster);
      // Read at once, no waiting: every node, replicas included, holds its copy of the key
      // (a replica cannot run EMQ.WIRE, a write command, so its slot's key count is read).
      for (const node of cluster.nodes) {
        const client = await node.client();
        const slot = String(await client.call('CLUSTER', 'KEYSLOT', wireKey));
        expect(await client.call('CLUSTER', 'COUNTKEYSINSLOT', slot), node.url).toBe(1);
        if ((await node.role()) === 'primary') {
          expect(await client.call('EMQ.WIRE'), node.url).toEqual(['1', '1']);
        }
      }
    } finally {
      await cluster.stop();
    }
  });
});
