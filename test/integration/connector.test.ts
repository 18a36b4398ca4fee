// The connector opens only where the fence holds this host's wire identity (docs/wire.md,
// "The fence").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install } from '../../src/connection/fence.js';
import { readNodes } from '../../src/connection/node-reading.js';
import { LIBRARY_VERSION } from '../../src/families/library.js';
import { ConfigError, connect, FenceError, UnavailableError } from '../../src/index.js';
import { startRoundTripProxy } from '../fixtures/sqs/round-trip-proxy.js';
import { connectTo } from '../support/emq.js';
import { freePort, type ServerHandle, startStandalone } from '../support/servers.js';

let withModule: ServerHandle;
let otherWire: ServerHandle;

beforeAll(async () => {
  [withModule, otherWire] = await Promise.all([
    startStandalone({ module: true }),
    startStandalone({ module: { wire: '2' } }),
  ]);
});

afterAll(() => Promise.all([withModule.stop(), otherWire.stop()]));

describe('connect', () => {
  it('refuses, retryably, a server whose fence is not installed, naming both values', async () => {
    await (await withModule.client()).del('{emq}:version');
    const failure = await connect({ urls: [withModule.url] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(FenceError);
    expect(failure).toMatchObject({ code: 'EMQWIRE', retryable: true, status: 503 });
    expect((failure as Error).message).toMatch(
      /the server: it has no \{emq\}:version; this host expects '1'/,
    );
  });

  it('opens once the fence is installed, and installing twice changes nothing', async () => {
    const installer = await connectTo(withModule, { checkFence: false });
    const first = await install(installer);
    const second = await install(installer);
    expect(first).toEqual([
      {
        node: 'server',
        module: '1',
        commands: { enqueue: true, admit: expect.any(Boolean) },
        functions: true,
        value: '1',
        library: LIBRARY_VERSION,
        policy: 'noeviction',
        ok: true,
      },
    ]);
    expect(second).toEqual(first);
    const conn = await connectTo(withModule);
    expect(conn.family.name).toBe('native');
  });

  it('refuses a server whose fence holds another identity, naming both values', async () => {
    const client = await withModule.client();
    await client.set('{emq}:version', '7');
    try {
      const failure = await connect({ urls: [withModule.url] }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(FenceError);
      expect((failure as Error).message).toMatch(/it holds '7'; this host expects '1'/);
    } finally {
      await client.set('{emq}:version', '1');
      client.disconnect();
    }
  });

  it('will not install an identity the module was not built for', async () => {
    const installer = await connectTo(otherWire, { checkFence: false });
    await expect(install(installer)).rejects.toThrow(/module is built for '2'/);
    expect(await readNodes(installer)).toMatchObject([
      { node: 'server', module: '2', value: null, library: null, ok: false },
    ]);
  });

  it('opens with a matching wire identity on both sides', async () => {
    const installer = await connectTo(otherWire, { checkFence: false, wire: '2' });
    await install(installer);
    const conn = await connectTo(otherWire, { wire: '2' });
    expect(conn.config.wire).toBe('2');
  });

  it('refuses, retryably, a server without the emq library or with another version', async () => {
    const admin = await withModule.client();
    try {
      await admin.call('FUNCTION', 'DELETE', 'emq');
      const missing = await connect({ urls: [withModule.url] }).catch((error: unknown) => error);
      expect(missing).toMatchObject({ code: 'EMQWIRE', retryable: true });
      expect((missing as Error).message).toMatch(
        new RegExp(`the server: it has no emq library; this host expects '${LIBRARY_VERSION}'`),
      );
      expect((missing as FenceError).publicDetail).not.toMatch(/'/);
      await admin.call(
        'FUNCTION',
        'LOAD',
        "#!lua name=emq\nredis.register_function{function_name='emq_version', callback=function() return 'old' end, flags={'no-writes'}}",
      );
      const old = await connect({ urls: [withModule.url] }).catch((error: unknown) => error);
      expect((old as Error).message).toMatch(/it has emq library 'old'/);
    } finally {
      await install(await connectTo(withModule, { checkFence: false }));
      admin.disconnect();
    }
  });

  it.each([
    ['allkeys-lru', false],
    ['allkeys-lfu', false],
    ['volatile-lru', true],
    ['volatile-ttl', true],
    ['noeviction', true],
  ] as const)(
    'judges maxmemory-policy %s (serves: %s): nothing it writes has a TTL',
    async (policy, serves) => {
      const admin = await withModule.client();
      const warnings: string[] = [];
      try {
        await admin.config('SET', 'maxmemory-policy', policy);
        const outcome = await connect({
          urls: [withModule.url],
          onWarning: (event) => warnings.push(event),
        }).catch((error: unknown) => error);
        if (serves) {
          expect(outcome).not.toBeInstanceOf(Error);
          expect(warnings).toEqual([]);
          await (outcome as { close(): Promise<void> }).close();
        } else {
          expect(outcome).toBeInstanceOf(ConfigError);
          expect(outcome).toMatchObject({ code: 'EMQ_CONFIG', retryable: false });
          expect((outcome as Error).message).toMatch(/maxmemory-policy noeviction/);
        }
      } finally {
        await admin.config('SET', 'maxmemory-policy', 'noeviction');
        admin.disconnect();
      }
    },
  );

  it('fails retryably, without naming the address, when nothing listens', async () => {
    const port = await freePort();
    const failure = await connect({
      urls: [`redis://127.0.0.1:${port}`],
      connectTimeoutMs: 500,
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UnavailableError);
    expect((failure as Error).message).not.toContain(String(port));
  });
});

describe('the connect-time checks', () => {
  it('take one round trip per primary, two for auto, one for a cached script', async () => {
    const installer = await connectTo(withModule, { checkFence: false });
    await install(installer);
    const proxy = await startRoundTripProxy(withModule.port);
    try {
      const ready = await connect({ urls: [proxy.url], checkFence: false, family: 'native' });
      const readyTrips = proxy.roundTrips();
      await ready.close();
      proxy.reset();
      // The same open with every check of docs/wire.md "The fence" and docs/reliability.md
      // "Acknowledgements" judged: no trip more.
      const checked = await connect({ urls: [proxy.url], family: 'native' });
      expect(proxy.roundTrips()).toBe(readyTrips);
      await checked.close();
      // No ready check (INFO) of iovalkey's: the pipeline that reads the node (identity,
      // library, memory policy) is the one trip.
      expect(readyTrips).toBe(1);
      proxy.reset();
      // `auto` first asks which commands the node knows, so it never sends one it lacks.
      const auto = await connect({ urls: [proxy.url] });
      expect(proxy.roundTrips()).toBe(2);
      await auto.close();
      // The script family reads SCRIPT EXISTS of its script in the same pipeline; where the
      // script is cached (as the installer leaves it) that is its version check: no EVALSHA.
      const scriptInstaller = await connectTo(withModule, {
        checkFence: false,
        family: 'script',
      });
      await install(scriptInstaller);
      await scriptInstaller.close();
      proxy.reset();
      const script = await connect({ urls: [proxy.url], family: 'script' });
      expect(proxy.roundTrips()).toBe(1);
      await script.close();
    } finally {
      await proxy.close();
    }
  });
});
