// `emq fence check | install` on real servers: a fresh standalone server per test (the fence is
// server-wide state), one without the module (script family), and one 3-primary cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIBRARY_VERSION } from '../../src/families/library.js';
import { wireKey } from '../../src/keyspace/keyspace.js';
import { assertBuilt, emq } from '../support/cli.js';
import {
  type ClusterHandle,
  type ServerHandle,
  startCluster,
  startStandalone,
  stopAll,
} from '../support/servers.js';

let cluster: ClusterHandle;

beforeAll(async () => {
  assertBuilt();
  cluster = await startCluster({ module: true });
});

afterAll(async () => {
  await stopAll();
});

interface Fence {
  wire: string;
  ok: boolean;
  nodes: { node: string; module: string | null; value: string | null; ok: boolean }[];
}

const fenceOf = (stdout: string) => JSON.parse(stdout) as Fence;

async function valueOn(server: ServerHandle): Promise<string | null> {
  const client = await server.client();
  try {
    return await client.get(wireKey);
  } finally {
    client.disconnect();
  }
}

describe('emq fence check', () => {
  it('exits 1 and shows the missing value where the fence is not installed', async () => {
    const server = await startStandalone({ module: true });
    const run = await emq(['fence', 'check', '--url', server.url, '--json']);
    expect(run.code).toBe(1);
    expect(fenceOf(run.stdout)).toEqual({
      wire: '1',
      ok: false,
      nodes: [
        {
          node: 'server',
          module: '1',
          commands: { enqueue: true, admit: expect.any(Boolean) },
          functions: true,
          value: null,
          library: null,
          policy: 'noeviction',
          ok: false,
        },
      ],
    });
  });

  it('says on stderr what to run when the fence does not match', async () => {
    const server = await startStandalone({ module: true });
    const run = await emq(['fence', 'check', '--url', server.url]);
    expect(run.stdout).toBe(
      'node    module  value      library    policy      ok\nserver  1       (missing)  (missing)  noeviction  NO\n',
    );
    expect(run.stderr).toContain('emq: EMQWIRE: 1 of 1 primaries');
    expect(run.stderr).toContain('emq install');
  });

  it('exits 0 once the fence is installed', async () => {
    const server = await startStandalone({ module: true });
    await emq(['fence', 'install', '--url', server.url]);
    const run = await emq(['fence', 'check', '--url', server.url]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      `node    module  value  library  policy      ok\nserver  1       1      ${LIBRARY_VERSION}        noeviction  yes\n`,
    );
  });

  it('exits 1 where a primary runs an allkeys-* policy, which the functions refuse', async () => {
    const server = await startStandalone({ module: true });
    await emq(['fence', 'install', '--url', server.url]);
    const client = await server.client();
    try {
      await client.config('SET', 'maxmemory-policy', 'allkeys-lru');
    } finally {
      client.disconnect();
    }
    const run = await emq(['fence', 'check', '--url', server.url]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/allkeys-lru +NO\n/);
    expect(run.stderr).toContain('EMQ_CONFIG: 1 of 1 primaries run an allkeys-* memory policy');
    expect(run.stderr).toContain('maxmemory-policy noeviction');
  });
});

describe('emq install', () => {
  it('installs identity and library, the same as emq fence install', async () => {
    const server = await startStandalone({ module: true });
    const run = await emq(['install', '--url', server.url, '--json']);
    expect(run.code).toBe(0);
    expect(fenceOf(run.stdout).nodes).toMatchObject([{ value: '1', library: LIBRARY_VERSION }]);
  });
});

describe('emq fence install', () => {
  it('writes the wire identity on a server with the module, idempotently', async () => {
    const server = await startStandalone({ module: true });
    for (const attempt of [1, 2]) {
      const run = await emq(['fence', 'install', '--url', server.url, '--json']);
      expect(run.code, `attempt ${attempt}`).toBe(0);
      expect(fenceOf(run.stdout).ok).toBe(true);
    }
    expect(await valueOn(server)).toBe('1');
  });

  it('refuses a wire identity the module is not built for: EMQWIRE, exit 1, nothing written', async () => {
    const server = await startStandalone({ module: true });
    const run = await emq(['fence', 'install', '--url', server.url, '--wire', '2']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^emq: EMQWIRE: Cannot install wire identity '2'/);
    expect(await valueOn(server)).toBeNull();
  });

  it('writes the key and loads the library on a server without the module (function family)', async () => {
    const server = await startStandalone();
    const run = await emq(['fence', 'install', '--url', server.url, '--json'], {
      env: { EMQ_WIRE: 'v7' },
    });
    expect(run.code).toBe(0);
    expect(fenceOf(run.stdout).nodes).toMatchObject([
      { node: 'server', module: null, value: 'v7', library: LIBRARY_VERSION, ok: true },
    ]);
    expect(await valueOn(server)).toBe('v7');
  });

  it('installs on every primary of a cluster, each holding its own copy', async () => {
    const url = cluster.seeds.join(',');
    const before = await emq(['fence', 'check', '--url', url, '--cluster', '--json']);
    expect(before.code).toBe(1);
    expect(fenceOf(before.stdout).nodes.map((node) => node.value)).toEqual([null, null, null]);

    const run = await emq(['fence', 'install', '--url', url, '--cluster', '--json']);
    expect(run.code).toBe(0);
    const installed = fenceOf(run.stdout);
    expect(installed.nodes).toHaveLength(3);
    expect(new Set(installed.nodes.map((node) => node.node)).size).toBe(3);
    for (const primary of await cluster.primaries()) {
      const client = await primary.client();
      // EMQ.WIRE reads the node's own copy, whatever slot the key hashes to.
      expect(await client.call('EMQ.WIRE')).toEqual(['1', '1']);
      client.disconnect();
    }
  });
});
