// The target profiles themselves (test/support/targets/), on the run's Valkey (8.0.1 and
// 9.1.2 in CI): every profile starts and serves every slot through its proxies only, over TLS
// where it says; its memory policy and settings are the profile's (the stack's where the stack
// decides them); what the service lacks answers the product as unknown while the harness keeps
// its digests and CONFIG under names of its own; the record of the product's commands fails the
// assertion on one the target lacks. The Serverless proxy holds the service's limits. The
// deployed settings reach a target with their secrets answered by the stand-in.
import { connect as connectTcp } from 'node:net';
import { connect as connectTls } from 'node:tls';
import calculateSlot from 'cluster-key-slot';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { onFenceEvent } from '../../functions/fence/on-event.js';
import { handler as httpHandler } from '../../functions/http/handler.js';
import { resetContainer } from '../../functions/shared/connection.js';
import { setLogSink } from '../../functions/shared/log.js';
import { readCredentials } from '../../functions/shared/secrets.js';
import type { CacheKind } from '../../infra/cache/registry.js';
import {
  FUNCTIONS_RULES_FUNCTION,
  INSTALLER_RULES_FUNCTION,
} from '../../src/families/access-rules.js';
import { mintId } from '../../src/index.js';
import { fixture } from '../fixtures/http/events.js';
import { clearEmqEnv, invoke } from '../fixtures/http/invoke.js';
import { createEvent } from '../infra/support/cfn-events.js';
import { HARNESS_USER } from '../support/targets/acl-file.js';
import { targetCertificates } from '../support/targets/certs.js';
import {
  assertCommandsSupported,
  deployed,
  deployedUsers,
  environmentFor,
  PROFILE_NAMES,
  type ProfileName,
  SecretsStandIn,
  startTarget,
  type Target,
  type TargetUser,
  unsupportedCommands,
} from '../support/targets/index.js';
import type { TargetNode } from '../support/targets/target.js';
import { slotMapProblem } from '../support/targets/target-ready.js';
import { waitFor } from '../support/wait.js';

/** A user with every permission: what it is refused, the service refuses, not its ACL. */
const TESTER: TargetUser = { name: 'tester', rules: 'on ~* &* +@all' };
/** The stack kind each profile stands in for, whose deployed users it is started with. */
const KIND_OF: Partial<Record<ProfileName, CacheKind>> = {
  elasticache: 'elasticache',
  serverless: 'serverless',
  selfmanaged: 'selfmanaged',
  memorydb: 'memorydb',
};
const started = new Map<ProfileName, Promise<Target>>();
const startTimes = new Map<ProfileName, number>();

/** Each profile starts once per file, with the tester and its kind's deployed users. */
function targetOf(name: ProfileName): Promise<Target> {
  let target = started.get(name);
  if (target === undefined) {
    const kind = KIND_OF[name];
    const users = [TESTER, ...(kind === undefined ? [] : deployedUsers(deployed(kind)))];
    const began = performance.now();
    target = startTarget(name, { users }).then((ready) => {
      startTimes.set(name, Math.round(performance.now() - began));
      return ready;
    });
    started.set(name, target);
  }
  return target;
}

afterAll(async () => {
  console.log(`started in ms: ${JSON.stringify(Object.fromEntries(startTimes))}`);
  await Promise.all([...started.values()].map(async (target) => (await target).stop()));
});

/** Node 0: a primary from the start, serving the first range of slots. */
function firstNode(target: Target): TargetNode {
  const [first] = target.nodes;
  if (first === undefined) throw new Error(`${target.name} has no node`);
  return first;
}

/** `1gb` -> 1073741824, as CONFIG GET answers memory settings. */
function normalised(value: string): string {
  const units: Record<string, number> = { kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };
  const match = /^(\d+)(kb|mb|gb)$/i.exec(value);
  return match === null
    ? value
    : String(Number(match[1]) * (units[(match[2] as string).toLowerCase()] as number));
}

/** A command for an unavailable entry: `client|list` -> CLIENT LIST. */
function commandFor(entry: string): string[] {
  return entry.split('|').map((word) => word.toUpperCase());
}

/** Resolves with what a plain-text client hears on `port` before the connection ends. */
function plainTextAnswer(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connectTcp({ host: '127.0.0.1', port }, () => socket.write('PING\r\n'));
    let heard = '';
    socket.on('data', (chunk: Buffer) => {
      heard += chunk.toString('latin1');
      if (heard.includes('\r\n')) socket.destroy();
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(heard));
  });
}

describe.each(PROFILE_NAMES)('the %s profile', (name) => {
  const target = () => targetOf(name);

  beforeEach(async () => {
    (await target()).commands.reset();
  });

  it('serves every slot through its proxies and nowhere else, with TLS where the profile requires it', async () => {
    const t = await target();
    const first = firstNode(t);
    const session = await t.session(first, 'tester');
    expect(await session.send(['PING'])).toEqual(['+PONG\r\n']);
    if (t.cluster) {
      const client = await t.client('tester');
      expect(slotMapProblem(t, first, await client.call('CLUSTER', 'SLOTS'))).toBeUndefined();
    }
    const heard = await plainTextAnswer(first.proxy.port);
    if (t.resolved.profile.tls) {
      expect(heard).toBe('');
      // The node itself has no plain-text port either: its one TCP port is TLS-only.
      expect(await plainTextAnswer(first.server.port)).not.toContain('PONG');
      const { otherCa } = await targetCertificates();
      const refused = await new Promise<Error>((resolve) => {
        const socket = connectTls({ host: '127.0.0.1', port: first.proxy.port, ca: otherCa });
        socket.once('secureConnect', () => resolve(new Error('accepted under another CA')));
        socket.once('error', resolve);
      });
      expect(refused.message).toMatch(/certificate/i);
    } else {
      expect(heard).toBe('+PONG\r\n');
    }
  });

  it('runs with the profile’s memory policy and settings', async () => {
    const t = await target();
    const client = await t.client('tester');
    const policy = /maxmemory_policy:(\S+)/.exec(String(await client.call('INFO', 'memory')))?.[1];
    // The profile's (the stack's parameter group for elasticache); a plain server's default.
    const configured = t.resolved.settings.find(([setting]) => setting === 'maxmemory-policy')?.[1];
    expect(policy).toBe(configured ?? 'noeviction');
    if (name === 'serverless') expect(policy).toBe('volatile-lru');
    for (const node of t.nodes) {
      for (const [setting, value] of t.resolved.settings) {
        expect(await t.call(node, 'CONFIG', 'GET', setting)).toEqual([setting, normalised(value)]);
      }
    }
  });

  it('answers the product every command and subcommand the service lacks as unknown; the harness keeps its own', async () => {
    const t = await target();
    const first = firstNode(t);
    const session = await t.session(first, 'tester');
    for (const entry of t.resolved.unavailable) {
      const [reply] = await session.send(commandFor(entry));
      expect(reply, entry).toMatch(
        entry.includes('|') ? /^-ERR unknown subcommand '/ : /^-ERR unknown command '/,
      );
    }
    expect(await session.send(['PING'])).toEqual(['+PONG\r\n']);
    // The harness's names for what it keeps (DEBUG, CONFIG, ...) still work, over the socket.
    expect(await t.call(first, 'CONFIG', 'GET', 'cluster-enabled')).toEqual([
      'cluster-enabled',
      t.cluster ? 'yes' : 'no',
    ]);
    for (const [from, to] of t.resolved.renames) {
      if (to === '') expect(() => t.command(from)).toThrow(/not even for the harness/);
      else expect(t.command(from)).toMatch(new RegExp(`^emq-harness-[0-9a-f]{8}-${from}$`));
    }
  });

  it('carries large values and long pipelines through the proxy both ways, byte for byte', async () => {
    const t = await target();
    const client = await t.client('tester');
    const value = Buffer.from(Array.from({ length: 3 * 1024 * 1024 }, (_, i) => (i * 7) % 256));
    await client.set('{large}value', value);
    expect((await client.getBuffer('{large}value'))?.equals(value)).toBe(true);
    const pipeline = client.pipeline();
    for (let i = 0; i < 2_000; i++) pipeline.hset('{large}hash', `field-${i}`, `value-${i}`);
    await pipeline.exec();
    expect(await client.hlen('{large}hash')).toBe(2_000);
    expect(Object.keys(await client.hgetall('{large}hash'))).toHaveLength(2_000);
    await client.del('{large}value', '{large}hash');
  });

  it('digests the dataset byte for byte under the harness’s names', async () => {
    const t = await target();
    const client = await t.client('tester');
    const before = await t.digest();
    expect(before.size).toBe(t.resolved.shards);
    await client.set('{digest}key', 'value');
    const during = await t.digest();
    expect(during).not.toEqual(before);
    expect((await t.snapshot()).get('{digest}key')).toMatch(/ pttl=-1$/);
    await client.del('{digest}key');
    expect(await t.digest()).toEqual(before);
  });

  it('records the product’s commands: the assertion passes on supported ones and names one the target lacks', async () => {
    const t = await target();
    const client = await t.client('tester');
    await client.set('{record}key', 'value');
    expect(await client.get('{record}key')).toBe('value');
    assertCommandsSupported(t);
    const lacking = [...t.resolved.unavailable][0] ?? 'emq.no-such-command';
    await (await t.session(firstNode(t), 'tester')).send(commandFor(lacking));
    expect(() => assertCommandsSupported(t)).toThrow(`${lacking.toUpperCase()} as tester, 1x`);
    expect(unsupportedCommands(t).map((record) => record.user)).toEqual(['tester']);
  });

  if (name !== 'plain-standalone' && name !== 'serverless' && name !== 'memorydb') {
    it('redirects with MOVED to proxies only', async () => {
      const t = await target();
      const first = firstNode(t);
      // Node 0 serves the first range of slots: a key past it belongs to another primary.
      const key = Array.from({ length: 100 }, (_, i) => `moved-${i}`).find(
        (candidate) => calculateSlot(candidate) >= 16_384 / t.resolved.shards,
      ) as string;
      const [reply] = await (await t.session(first, 'tester')).send(['GET', key]);
      const port = Number(/^-MOVED \d+ 127\.0\.0\.1:(\d+)\r\n$/.exec(reply ?? '')?.[1]);
      expect(t.nodes.map((node) => node.proxy.port)).toContain(port);
    });
  }

  if (name === 'elasticache' || name === 'memorydb' || name === 'selfmanaged') {
    it('replicates every primary to its replicas through the proxies', async () => {
      const t = await target();
      const client = await t.client('tester');
      await client.set('{replicated}key', 'value');
      const replicas = t.nodes.filter(
        (node) => !t.nodes.slice(0, t.resolved.shards).includes(node),
      );
      expect(replicas).toHaveLength(t.resolved.shards * t.resolved.replicasPerShard);
      // The replicas of the key's primary get it (the others answer MOVED).
      await waitFor('the key on its primary’s replicas', 30_000, async () => {
        const holders = await Promise.all(
          replicas.map((replica) =>
            replica.server.probe(async (connection) => {
              await connection.call('READONLY');
              return connection.get('{replicated}key').catch(() => 'elsewhere');
            }),
          ),
        );
        const have = holders.filter((value) => value === 'value').length;
        return have === t.resolved.replicasPerShard ? undefined : `${have} replicas have it`;
      });
      await client.del('{replicated}key');
    });

    it('fails over when the harness says so (over the node’s socket), and clients follow through the proxies', async () => {
      const t = await target();
      const primary = firstNode(t);
      // The first replica follows node 0 (form-cluster.ts); node 0 serves the first slots.
      const replica = t.nodes[t.resolved.shards] as TargetNode;
      const key = Array.from({ length: 100 }, (_, i) => `failover-${i}`).find(
        (candidate) => calculateSlot(candidate) < 16_384 / t.resolved.shards,
      ) as string;
      expect(await t.call(replica, 'CLUSTER', 'FAILOVER')).toBe('OK');
      await waitFor('the replica to serve node 0’s slots', 30_000, async () => {
        const primaries = await t.primaries();
        return primaries.includes(replica) && !primaries.includes(primary) ? undefined : 'not yet';
      });
      await t.waitForHealthy();
      const client = await t.client('tester');
      await client.set(key, 'after');
      expect(await client.get(key)).toBe('after');
      await client.del(key);
      assertCommandsSupported(t);
    });
  }
});

describe('the serverless proxy', () => {
  const target = () => targetOf('serverless');

  beforeEach(async () => {
    (await target()).commands.reset();
  });

  it('takes 3,999 arguments and refuses 4,000', async () => {
    const t = await target();
    const session = await t.session(firstNode(t), 'tester');
    const keys = (count: number) => Array.from({ length: count }, (_, i) => `{cap}k${i}`);
    expect(await session.send(['EXISTS', ...keys(3_998)])).toEqual([':0\r\n']);
    expect(await session.send(['EXISTS', ...keys(3_999)])).toEqual([
      '-ERR the command has 4000 arguments; at most 3999 are accepted\r\n',
    ]);
    expect(unsupportedCommands(t)).toEqual([
      { user: 'tester', command: 'exists', subcommand: undefined, refused: 'arguments', count: 1 },
    ]);
  });

  it('refuses key-less EVAL and EVALSHA with AWS’s text and forwards a keyed script', async () => {
    const t = await target();
    const session = await t.session(firstNode(t), 'tester');
    const refusal = '-ERR Lua scripts without any input keys are not supported.\r\n';
    expect(await session.send(['EVAL', 'return 1', '0'])).toEqual([refusal]);
    const [loaded] = await session.send(['SCRIPT', 'LOAD', 'return 1']);
    const sha = (loaded ?? '').split('\r\n')[1] as string;
    expect(await session.send(['EVALSHA', sha, '0'])).toEqual([refusal]);
    expect(
      await session.send(['EVAL', "return redis.call('SET', KEYS[1], 'x')", '1', '{lua}key']),
    ).toEqual(['+OK\r\n']);
    expect(await session.send(['EVALSHA', sha, '1', '{lua}key'])).toEqual([':1\r\n']);
    await session.send(['DEL', '{lua}key']);
  });

  it('answers SCRIPT FLUSH with OK and keeps the script cache', async () => {
    const t = await target();
    const session = await t.session(firstNode(t), 'tester');
    const [loaded] = await session.send(['SCRIPT', 'LOAD', 'return 2']);
    const sha = (loaded ?? '').split('\r\n')[1] as string;
    expect(await session.send(['SCRIPT', 'FLUSH'], ['SCRIPT', 'EXISTS', sha])).toEqual([
      '+OK\r\n',
      '*1\r\n:1\r\n',
    ]);
  });

  it('names only its proxy in CLUSTER SLOTS, SHARDS and NODES: one virtual node with every slot', async () => {
    const t = await target();
    const node = firstNode(t);
    const client = await t.client('tester');
    const port = node.proxy.port;
    const slots = (await client.call('CLUSTER', 'SLOTS')) as unknown[][];
    expect(
      slots.map(([first, last, endpoint]) => [first, last, (endpoint as unknown[]).slice(0, 2)]),
    ).toEqual([[0, 16_383, ['127.0.0.1', port]]]);
    const nodes = String(await client.call('CLUSTER', 'NODES'))
      .trim()
      .split('\n');
    expect(nodes).toHaveLength(1);
    expect(nodes[0]).toContain(` 127.0.0.1:${port}@${node.server.port + 10_000} `);
    const shards = JSON.stringify(await client.call('CLUSTER', 'SHARDS'));
    const ports = [...shards.matchAll(/"(?:tls-)?port",(\d+)/g)].map((match) => Number(match[1]));
    expect(ports).toEqual([port, port]);
    assertCommandsSupported(t);
  });

  it('keeps pipelined replies in order around a refusal, and a refusal inside MULTI aborts it', async () => {
    const t = await target();
    const session = await t.session(firstNode(t), 'tester');
    expect(
      await session.send(
        ['SET', '{order}a', '1'],
        ['EVAL', 'return 1', '0'],
        ['CLIENT', 'LIST'],
        ['GET', '{order}a'],
      ),
    ).toEqual([
      '+OK\r\n',
      '-ERR Lua scripts without any input keys are not supported.\r\n',
      "-ERR unknown subcommand 'LIST'. Try CLIENT HELP.\r\n",
      '$1\r\n1\r\n',
    ]);
    const [multi, queued, refused, exec, after] = await session.send(
      ['MULTI'],
      ['SET', '{order}b', '1'],
      ['CLIENT', 'KILL', 'ID', '1'],
      ['EXEC'],
      ['GET', '{order}b'],
    );
    expect([multi, queued, refused, after]).toEqual([
      '+OK\r\n',
      '+QUEUED\r\n',
      "-ERR unknown subcommand 'KILL'. Try CLIENT HELP.\r\n",
      '$-1\r\n',
    ]);
    expect(exec).toMatch(/^-EXECABORT /);
    await session.send(['DEL', '{order}a']);
  });

  it('counts a command AWS lists in neither of its lists as unsupported (CLIENT SETINFO)', async () => {
    const t = await target();
    const session = await t.session(firstNode(t), 'tester');
    expect(await session.send(['CLIENT', 'SETINFO', 'LIB-NAME', 'probe'])).toEqual(['+OK\r\n']);
    expect(() => assertCommandsSupported(t)).toThrow(/CLIENT\|SETINFO as tester, 1x/);
  });
});

describe('the deployed settings', () => {
  it('give every function of every kind a local environment: the target’s URLs and CA, secrets the stand-in answers', async () => {
    const cases: Array<[CacheKind, ProfileName]> = [
      ['elasticache', 'elasticache'],
      ['serverless', 'serverless'],
      ['existing', 'memorydb'],
      ['memorydb', 'memorydb'],
      ['selfmanaged', 'selfmanaged'],
    ];
    for (const [kind, profile] of cases) {
      const settings = deployed(kind);
      const t = await targetOf(profile);
      for (const fn of ['http', 'sqs', 'fence'] as const) {
        const { env, added } = environmentFor(settings, fn, t, {
          dlqUrl: 'http://127.0.0.1:1/dlq',
        });
        expect(env.EMQ_URL?.split(','), `${kind} ${fn}`).toEqual([...t.urls]);
        expect(env.EMQ_CLUSTER).toBe('true');
        const ca = Buffer.from(env.EMQ_TLS_CA ?? '', 'base64');
        expect(ca.equals(t.tls?.ca ?? Buffer.alloc(1))).toBe(true);
        expect(added).toEqual(kind === 'selfmanaged' ? [] : ['EMQ_TLS_CA']);
      }
      expect(() => environmentFor(settings, 'sqs', t)).toThrow(/EMQ_DLQ_URL/);
    }
  });

  it('run the fence installer on the node-based profile with the stack’s environment, as its own deployed user', async () => {
    const t = await targetOf('elasticache');
    const settings = deployed('elasticache');
    const { env } = environmentFor(settings, 'fence', t);
    const secrets = new SecretsStandIn(settings, t);
    t.commands.reset();
    const restore = setLogSink(() => {});
    try {
      const result = await onFenceEvent(createEvent(env.EMQ_WIRE ?? '1'), {
        env,
        secrets: secrets.client,
      });
      expect(result.Data).toMatchObject({ Wire: env.EMQ_WIRE, Nodes: t.resolved.shards });
    } finally {
      setLogSink(restore);
    }
    expect(secrets.asked).toEqual([env.EMQ_SECRET_ARN]);
    // Replicas stream their acknowledgements through the proxies as the harness's user.
    const users = new Set(t.commands.entries().map((record) => record.user));
    users.delete(HARNESS_USER);
    expect([...users]).toEqual(['emq-installer']);
    // What it sent is the product suite's to assert (assertCommandsSupported): today it probes
    // EMQ.WIRE, which a server without the module answers as unknown.
    expect(
      t.commands
        .entries()
        .some((record) => record.command === 'function' && record.subcommand === 'load'),
    ).toBe(true);
  });

  it('install and admit a job on the memorydb profile as cache=memorydb deploys them: its own users, the function family, no WAIT', async () => {
    const t = await targetOf('memorydb');
    const settings = deployed('memorydb');
    const secrets = new SecretsStandIn(settings, t);
    const saved = { ...process.env };
    t.commands.reset();
    const restore = setLogSink(() => {});
    try {
      const fence = environmentFor(settings, 'fence', t).env;
      await onFenceEvent(createEvent(fence.EMQ_WIRE ?? '1'), {
        env: fence,
        secrets: secrets.client,
      });
      const { env } = environmentFor(settings, 'http', t);
      expect(env).toMatchObject({ EMQ_EXECUTOR: 'function', EMQ_ACK_REPLICAS: '0' });
      await resetContainer();
      clearEmqEnv();
      Object.assign(process.env, env, await secrets.listen());
      const queue = 'memorydb-admits';
      const id = mintId();
      const answer = await invoke(httpHandler, fixture('v2-put', { queue, id }));
      expect(answer.response.statusCode).toBe(201);
      expect(answer.body).toMatchObject({ id });
      const client = await t.client('tester');
      expect(await client.exists(`emq:{${queue}}:job:${id}`)).toBe(1);
    } finally {
      setLogSink(restore);
      await resetContainer();
      clearEmqEnv();
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
      await secrets.stop();
    }
    const app = settings.users.find((user) => user.rules === FUNCTIONS_RULES_FUNCTION)?.name;
    const installer = settings.users.find((user) => user.rules === INSTALLER_RULES_FUNCTION)?.name;
    const users = new Set(t.commands.entries().map((record) => record.user));
    users.delete(HARNESS_USER);
    users.delete('tester');
    expect([...users].sort()).toEqual([app, installer].sort());
    const by = (user: string | undefined) =>
      new Set(
        t.commands
          .entries()
          .filter((record) => record.user === user)
          .map((record) => record.command),
      );
    expect(by(installer).has('function')).toBe(true);
    expect(by(app).has('fcall')).toBe(true);
    expect(by(app).has('wait')).toBe(false);
    assertCommandsSupported(t);
  });

  it('answer the real SDK client through the stand-in’s endpoint, and the deployed ACL rules hold on the target', async () => {
    const t = await targetOf('serverless');
    const settings = deployed('serverless');
    const { env } = environmentFor(settings, 'http', t);
    const secrets = new SecretsStandIn(settings, t);
    const sdkEnv = await secrets.listen();
    const saved = Object.fromEntries(Object.keys(sdkEnv).map((key) => [key, process.env[key]]));
    Object.assign(process.env, sdkEnv);
    let credentials: Awaited<ReturnType<typeof readCredentials>>;
    try {
      credentials = await readCredentials(env.EMQ_SECRET_ARN as string);
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      await secrets.stop();
    }
    expect(credentials.username).toBe('emq-app');
    expect(secrets.asked).toEqual([env.EMQ_SECRET_ARN]);
    const session = await t.session(firstNode(t), credentials.username);
    expect((await session.send(['INFO', 'memory']))[0]).toContain('maxmemory_policy:volatile-lru');
    const [flush, write] = await session.send(['FLUSHALL'], ['SET', 'not-emq', 'x']);
    expect(flush).toMatch(/^-NOPERM/);
    expect(write).toMatch(/^-NOPERM/);
  });
});
