// What `emq` says when it cannot connect, on real servers: the URL without credentials, the
// cause and the fix; that a fence mismatch is not labelled retryable to an operator; and that
// a setup refusal found at connect (memory policy, missing module) is a failure, exit 1: the
// connection was attempted, so it is not usage.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install } from '../../src/connection/fence.js';
import { assertBuilt, emq, STACK_FRAME } from '../support/cli.js';
import { connectTo } from '../support/emq.js';
import {
  type ClusterHandle,
  freePort,
  type ServerHandle,
  startCluster,
  startStandalone,
} from '../support/servers.js';

let server: ServerHandle;
let cluster: ClusterHandle;
let evicting: ServerHandle;
let moduleless: ServerHandle;
/** A port that is not Valkey's: an HTTP server answers 400 to anything else and hangs up. */
let web: Server;
let webUrl: string;

beforeAll(async () => {
  assertBuilt();
  server = await startStandalone({ module: true });
  cluster = await startCluster();
  // Fenced, so the memory policy and the module are what the connect-time checks refuse.
  evicting = await startStandalone({
    module: true,
    extraArgs: ['--maxmemory-policy', 'allkeys-lru'],
  });
  moduleless = await startStandalone();
  web = createServer((_, response) => response.end());
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  webUrl = `redis://127.0.0.1:${(web.address() as AddressInfo).port}`;
  for (const target of [evicting, moduleless]) {
    const connection = await connectTo(target, { checkFence: false });
    await install(connection);
  }
});

afterAll(async () => {
  await server?.stop();
  await cluster?.stop();
  await evicting?.stop();
  await moduleless?.stop();
  await new Promise((resolve) => web?.close(resolve));
});

interface Failure {
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
}

async function failure(args: readonly string[]): Promise<{ exit: number | null; error: Failure }> {
  const run = await emq([...args, '--json']);
  return { exit: run.code, error: (JSON.parse(run.stdout) as { error: Failure }).error };
}

describe('emq connection failures', () => {
  it('names the URL, never its password, and says nothing listens on a wrong port', async () => {
    const port = await freePort();
    const { exit, error } = await failure([
      'pending',
      'q',
      '--url',
      `redis://ops:hunter2@127.0.0.1:${port}`,
    ]);
    expect(exit).toBe(1);
    expect(error.code).toBe('EMQ_UNAVAILABLE');
    expect(error.message).toContain(`redis://127.0.0.1:${port}`);
    expect(error.message).toMatch(/nothing listens.*Check the port/);
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('ops@');
  });

  it.each([['pending', 'q'], ['get', 'q', 'JOB0SaFbT0LuLE'], ['enqueue', 'q', 'x'], ['install']])(
    'says a port that answers is not Valkey, without a crash: %s',
    async (...args) => {
      const text = await emq([...args, '--url', webUrl]);
      expect(text.code).toBe(1);
      expect(text.stdout).toBe('');
      expect(text.stderr).toBe(
        `emq: EMQ_CONFIG: Cannot connect to ${webUrl}: something listens on that port but does not answer as Valkey does. Check the port in --url or EMQ_URL (npm start prints Valkey's), and use rediss:// for a server that wants TLS.\n`,
      );
      const { exit, error } = await failure([...args, '--url', webUrl]);
      expect(exit).toBe(1);
      expect(error).toMatchObject({ code: 'EMQ_CONFIG', retryable: false });
    },
  );

  it('tells in emq doctor what is at a wrong port and what to do, not only "retry"', async () => {
    const port = await freePort();
    for (const [url, told] of [
      [
        `redis://127.0.0.1:${port}`,
        /^NO {2}connect: EMQ_UNAVAILABLE: .*nothing listens on that port.*Check the port/,
      ],
      [webUrl, /^NO {2}connect: EMQ_CONFIG: .*does not answer as Valkey does\. Check the port/],
    ] as const) {
      const run = await emq(['doctor', '--url', url]);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(told);
      expect(run.stdout).not.toMatch(/retry the request/);
      expect(run.stderr).not.toMatch(STACK_FRAME);
    }
  });

  it('says to drop --cluster against a single server, as a permanent fault', async () => {
    const { exit, error } = await failure(['pending', 'q', '--url', server.url, '--cluster']);
    expect(exit).toBe(1);
    expect(error).toMatchObject({ code: 'EMQ_CONFIG', retryable: false });
    expect(error.message).toContain(server.url.replace(/\/$/, ''));
    expect(error.message).toMatch(/single server.*Leave out --cluster/);
  });

  it('says to add --cluster against a cluster node, as a permanent fault', async () => {
    const seed = cluster.seeds[0] ?? '';
    const { exit, error } = await failure(['enqueue', 'q', 'x', '--url', seed]);
    expect(exit).toBe(1);
    expect(error).toMatchObject({ code: 'EMQ_CONFIG', retryable: false });
    expect(error.message).toMatch(/cluster node\. Add --cluster/);
  });

  it('does not label a fence mismatch retryable to an operator', async () => {
    // No fence installed on this server: an enqueue meets the connect-time check.
    const { exit, error } = await failure(['enqueue', 'q', 'x', '--url', server.url]);
    expect(exit).toBe(1);
    expect(error).toMatchObject({ code: 'EMQWIRE', retryable: false });
    expect(error.message).toMatch(/emq (fence )?install/);
  });

  it('exits 1, not 2, when the server refuses an evicting memory policy at connect', async () => {
    const { exit, error } = await failure(['enqueue', 'q', 'x', '--url', evicting.url]);
    expect(exit).toBe(1);
    expect(error).toMatchObject({ code: 'EMQ_CONFIG', retryable: false });
    expect(error.message).toMatch(/noeviction/);
  });

  it('exits 1, not 2, when EMQ_EXECUTOR=native meets a primary without the module', async () => {
    const run = await emq(['enqueue', 'q', 'x', '--url', moduleless.url, '--json'], {
      env: { EMQ_EXECUTOR: 'native' },
    });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      error: { code: 'EMQ_NO_MODULE', retryable: false },
    });
  });

  it('exits 2 for the same settings when they are malformed: nothing was attempted', async () => {
    const run = await emq(['enqueue', 'q', 'x', '--url', moduleless.url, '--json'], {
      env: { EMQ_EXECUTOR: 'natve' },
    });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'EMQ_CONFIG' } });
    expect((JSON.parse(run.stdout) as { error: { message: string } }).error.message).toMatch(
      /^EMQ_EXECUTOR is invalid: expected one of /,
    );
  });
});
