// The fence installer's onEvent on real servers that load the module (cache=existing): it
// installs the identity on every primary, is idempotent, leaves the fence on Delete, and
// reports failures without an address.
import { existsSync } from 'node:fs';
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FENCE_PHYSICAL_ID, onFenceEvent } from '../../functions/fence/on-event.js';
import { setLogSink } from '../../functions/shared/log.js';
import {
  type ClusterHandle,
  digestOf,
  freePort,
  type ServerHandle,
  startCluster,
  startStandalone,
} from '../support/servers.js';
import { createEvent, deleteEvent, updateEvent } from './support/cfn-events.js';

let cluster: ClusterHandle;
let fresh: ServerHandle;
let clusterEnv: Record<string, string>;
let restoreLogs: () => void;

beforeAll(async () => {
  // The handler's log lines would only clutter the test output; tests that read them capture.
  restoreLogs = captureLogs().restore;
  [cluster, fresh] = await Promise.all([
    startCluster({ module: true }),
    startStandalone({ module: true }),
  ]);
  clusterEnv = { EMQ_URL: cluster.seeds.join(','), EMQ_CLUSTER: 'true', EMQ_EXECUTOR: 'native' };
});

afterAll(async () => {
  restoreLogs();
  await Promise.all([cluster?.stop(), fresh?.stop()]);
});

/** `[module identity, this node's {emq}:version]` of every primary. */
async function wireOfPrimaries(): Promise<unknown[]> {
  const primaries = await cluster.primaries();
  return Promise.all(
    primaries.map(async (node) => {
      const client: Valkey = await node.client();
      try {
        return await client.call('EMQ.WIRE');
      } finally {
        client.disconnect();
      }
    }),
  );
}

async function closedPortUrl(): Promise<string> {
  return `redis://127.0.0.1:${await freePort()}`;
}

function captureLogs(): { lines: string[]; restore: () => void } {
  const lines: string[] = [];
  const previous = setLogSink((line) => lines.push(line));
  return { lines, restore: () => setLogSink(previous) };
}

describe('fence onEvent', () => {
  it('installs the wire identity on every primary on Create', async () => {
    const result = await onFenceEvent(createEvent('1'), { env: clusterEnv });
    expect(result).toEqual({
      PhysicalResourceId: FENCE_PHYSICAL_ID,
      Data: { Wire: '1', Nodes: 3 },
    });
    expect(await wireOfPrimaries()).toEqual([
      ['1', '1'],
      ['1', '1'],
      ['1', '1'],
    ]);
  });

  it('changes nothing when the same identity is installed again on Update', async () => {
    await onFenceEvent(createEvent('1'), { env: clusterEnv });
    const before = await digestOf(cluster);
    const result = await onFenceEvent(updateEvent('1'), { env: clusterEnv });
    expect(result.PhysicalResourceId).toBe(FENCE_PHYSICAL_ID);
    expect(await digestOf(cluster)).toEqual(before);
  });

  it('leaves the fence in place on Delete without connecting anywhere', async () => {
    await onFenceEvent(createEvent('1'), { env: clusterEnv });
    const before = await digestOf(cluster);
    const unreachable = { ...clusterEnv, EMQ_URL: await closedPortUrl(), EMQ_CLUSTER: 'false' };
    const result = await onFenceEvent(deleteEvent(), { env: unreachable, retryForMs: 0 });
    expect(result).toEqual({ PhysicalResourceId: FENCE_PHYSICAL_ID });
    expect(await digestOf(cluster)).toEqual(before);
  });

  it('fails at once, without retrying, for an identity the module was not built for', async () => {
    let retries = 0;
    const failure = await onFenceEvent(updateEvent('2'), {
      env: clusterEnv,
      backoffMs: () => {
        retries += 1;
        return 10;
      },
    }).catch((error: unknown) => error);
    expect((failure as Error).message).toMatch(
      /^Installing the EchoMQ wire identity failed: EMQWIRE: Cannot install wire identity '2' on cluster node [0-9a-f]{40}: its module is built for '1'/,
    );
    expect(retries).toBe(0);
    expect(await wireOfPrimaries()).not.toContainEqual(['1', '2']);
  });

  it('retries an unreachable server until its time is up, then fails naming no address', async () => {
    const logs = captureLogs();
    let retries = 0;
    const url = await closedPortUrl();
    try {
      const failure = await onFenceEvent(createEvent('1'), {
        env: { EMQ_URL: url, EMQ_CONNECT_TIMEOUT_MS: '200' },
        retryForMs: 400,
        backoffMs: () => {
          retries += 1;
          return 50;
        },
      }).catch((error: unknown) => error);
      expect((failure as Error).message).toMatch(
        /^Installing the EchoMQ wire identity failed: EMQ_UNAVAILABLE: /,
      );
      expect(retries).toBeGreaterThanOrEqual(2);
      const port = new URL(url).port;
      for (const text of [(failure as Error).message, ...logs.lines]) {
        expect(text).not.toContain('127.0.0.1');
        expect(text).not.toContain(port);
      }
    } finally {
      logs.restore();
    }
  });
});

describe('the built fence bundle', () => {
  const bundle = new URL('../../dist/functions/fence/index.mjs', import.meta.url);

  it('installs the identity on a server that has none, reading its settings from the environment', async () => {
    expect(existsSync(bundle), 'dist/functions/fence/index.mjs is missing: run npm run build').toBe(
      true,
    );
    const { handler } = (await import(bundle.href)) as {
      handler: (event: unknown, context: unknown) => Promise<unknown>;
    };
    const saved = { ...process.env };
    process.env.EMQ_URL = fresh.url;
    process.env.EMQ_EXECUTOR = 'native';
    // The bundle carries its own copy of the logger, which writes to stdout.
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      const result = await handler(createEvent('1'), { getRemainingTimeInMillis: () => 30_000 });
      expect(result).toEqual({
        PhysicalResourceId: FENCE_PHYSICAL_ID,
        Data: { Wire: '1', Nodes: 1 },
      });
      const lines = stdout.mock.calls.map(([chunk]) => String(chunk));
      expect(lines.some((line) => line.includes('"fence installed"'))).toBe(true);
      for (const line of lines) expect(line).not.toContain(String(fresh.port));
    } finally {
      stdout.mockRestore();
      process.env = saved;
    }
    const client = await fresh.client();
    expect(await client.call('EMQ.WIRE')).toEqual(['1', '1']);
    client.disconnect();
  });
});
