// Least privilege: the functions and the fence installer run under the ACL rules operators
// are given (acl-rules.ts), on a standalone server and a cluster, with both executors; and
// those users are refused everything else: flushing, configuration, key listing, writing the
// wire identity, touching keys outside their queues.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as httpHandler } from '../../functions/http/handler.js';
import { resetContainer } from '../../functions/shared/connection.js';
import { type LogSink, setLogSink } from '../../functions/shared/log.js';
import { handler as sqsHandler } from '../../functions/sqs/handler.js';
import { connect, installFence, mintJobId, readFence } from '../../src/index.js';
import { fixture, lambdaContext, withBody } from '../fixtures/http/events.js';
import { clearEmqEnv, configureContainer, invoke } from '../fixtures/http/invoke.js';
import { redelivered, sqsEvent, sqsRecord } from '../fixtures/sqs/records.js';
import { connectTo, jobsOf } from '../support/emq.js';
import {
  type ClusterHandle,
  randomQueue,
  type ServerHandle,
  startCluster,
  startStandalone,
} from '../support/servers.js';
import { aclUserLine, fenceInstallerRule, functionsRule } from './acl-rules.js';

const PASSWORD = randomBytes(18).toString('hex');
const FUNCTIONS = 'emq-functions';
const FUNCTIONS_FLAT = 'emq-functions-flat';
const FENCE = 'emq-fence';

let dir: string;
let standalone: ServerHandle;
let cluster: ClusterHandle;
/** A server without the module, as ElastiCache runs: the functions take the script path. */
let plain: ServerHandle;
let previousSink: LogSink;

/** An ACL file with the harness's own user and the package's three users. */
async function aclFile(name: string, module: boolean): Promise<string> {
  const path = join(dir, name);
  await writeFile(
    path,
    [
      // The harness's own user: it probes, creates the cluster and installs the first fence.
      'user default on nopass ~* &* +@all',
      aclUserLine(FUNCTIONS, PASSWORD, functionsRule({ module })),
      aclUserLine(FUNCTIONS_FLAT, PASSWORD, functionsRule({ module, selectors: false })),
      aclUserLine(FENCE, PASSWORD, fenceInstallerRule({ module })),
      '',
    ].join('\n'),
  );
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'emq-acl-'));
  const withModule = { module: true, extraArgs: ['--aclfile', await aclFile('module.acl', true)] };
  [standalone, cluster, plain] = await Promise.all([
    startStandalone(withModule),
    startCluster(withModule),
    startStandalone({ extraArgs: ['--aclfile', await aclFile('plain.acl', false)] }),
  ]);
  await Promise.all(
    [standalone, cluster, plain].map(async (target) =>
      installFence(await connectTo(target, { checkFence: false })),
    ),
  );
  previousSink = setLogSink(() => {});
});

afterAll(async () => {
  setLogSink(previousSink);
  await resetContainer();
  clearEmqEnv();
  await Promise.all([standalone?.stop(), cluster?.stop(), plain?.stop()]);
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

type Target = ServerHandle | ClusterHandle;
type Executor = 'native' | 'function' | 'auto';
const topologies: readonly (readonly [string, () => Target, readonly Executor[]])[] = [
  ['standalone server with the module', () => standalone, ['native', 'function']],
  ['cluster with the module', () => cluster, ['native', 'function']],
  ['standalone server without the module', () => plain, ['auto']],
];

function urlsOf(target: Target): { urls: string[]; cluster: boolean } {
  return target.kind === 'cluster'
    ? { urls: [...target.seeds], cluster: true }
    : { urls: [target.url], cluster: false };
}

async function primariesOf(target: Target): Promise<ServerHandle[]> {
  return target.kind === 'cluster' ? target.primaries() : [target];
}

describe.each(topologies)('on a %s', (_name, targetOf, executors) => {
  it('lets the fence installer user install the wire identity on every primary, with and without the module', async () => {
    const target = targetOf();
    await Promise.all(
      (await primariesOf(target)).map(async (node) => {
        const admin = await node.client();
        await admin.flushall();
        admin.disconnect();
      }),
    );
    // The script path first: where the module is loaded, EMQ.WIRE.INSTALL then covers every
    // primary, not only the one the routed SET reaches.
    for (const executor of executors.includes('native')
      ? (['function', 'native'] as const)
      : ['function' as const]) {
      const installer = await connect({
        ...urlsOf(target),
        username: FENCE,
        password: PASSWORD,
        executor,
        checkFence: false,
      });
      try {
        expect((await installFence(installer)).every((reading) => reading.ok)).toBe(true);
      } finally {
        await installer.close();
      }
    }
    const reader = await connectTo(target, {
      checkFence: false,
      executor: executors.includes('native') ? 'native' : 'function',
    });
    const readings = await readFence(reader);
    expect(readings.map((reading) => reading.ok)).toEqual(readings.map(() => true));
  });

  describe.each([
    ['the selector rule', FUNCTIONS],
    ['the flat rule', FUNCTIONS_FLAT],
  ])('with %s', (_rule, username) => {
    describe.each(executors)('and the %s executor', (executor) => {
      beforeAll(async () => {
        await configureContainer(targetOf(), {
          EMQ_EXECUTOR: executor,
          EMQ_USERNAME: username,
          EMQ_PASSWORD: PASSWORD,
        });
      });

      it('serves every HTTP route: POST, keyed POST and its replay, PUT, a conflicting PUT, GET', async () => {
        const queue = randomQueue('acl-http');
        const id = mintJobId();
        const statuses = [];
        for (const event of [
          fixture('v2-post', { queue }),
          fixture('v2-post-idempotency-key', { queue }),
          fixture('v2-post-idempotency-key', { queue }),
          fixture('v2-put', { queue, id }),
          fixture('v2-put', { queue, id }),
          withBody(fixture('v2-put', { queue, id }), 'another payload'),
          fixture('v2-get', { queue, id }),
        ]) {
          statuses.push((await invoke(httpHandler, event)).response.statusCode);
        }
        expect(statuses).toEqual([201, 201, 200, 201, 200, 409, 200]);
        const jobs = await jobsOf(await connectTo(targetOf()), queue);
        expect(jobs.rows).toHaveLength(3);
        expect(jobs.pending).toEqual(jobs.rows);
      });

      it('admits SQS first deliveries, redeliveries and caller ids, and takes back a second row', async () => {
        const queue = randomQueue('acl-sqs');
        const sentAt = Date.now();
        const first = sqsRecord({ queue, body: 'first', sentAt });
        const safe = sqsRecord({ queue, body: 'redelivered', sentAt, receiveCount: 2 });
        const own = sqsRecord({ queue, body: 'own id', jobId: mintJobId() });
        const handle = async (records: ReturnType<typeof sqsRecord>[]) =>
          (await sqsHandler(sqsEvent(records), lambdaContext())) as SQSBatchResponse;
        expect(await handle([first, safe, own])).toEqual({ batchItemFailures: [] });
        // The same message again, once as a redelivery and once as a first delivery that
        // proposes another id (another SentTimestamp): the row it writes is taken back.
        const again = { ...first, attributes: { ...first.attributes, SentTimestamp: '1' } };
        expect(await handle([redelivered(first), again])).toEqual({ batchItemFailures: [] });
        const jobs = await jobsOf(await connectTo(targetOf()), queue);
        expect(jobs.rows).toHaveLength(3);
        expect(jobs.pending).toEqual(jobs.rows);
      });
    });
  });
});

describe('the functions user', () => {
  const refusedOfBoth: readonly (readonly [string, readonly string[]])[] = [
    ['FLUSHALL', ['FLUSHALL']],
    ['FLUSHDB', ['FLUSHDB']],
    ['CONFIG GET', ['CONFIG', 'GET', 'maxmemory']],
    ['CONFIG SET', ['CONFIG', 'SET', 'appendonly', 'no']],
    ['KEYS', ['KEYS', '*']],
    ['SCAN', ['SCAN', '0']],
    ['writing {emq}:version with SET', ['SET', '{emq}:version', '2']],
    ['deleting {emq}:version', ['DEL', '{emq}:version']],
    [
      'writing {emq}:version from a script',
      ['EVAL', "return redis.call('SET', KEYS[1], '2')", '1', '{emq}:version'],
    ],
    [
      'writing an undeclared key from a script',
      ['EVAL', "return redis.call('SET', 'other', '1')", '1', 'emq:{q}:job:JOB0KHTOWnGLuC'],
    ],
    ['a key outside the queues', ['SET', 'other', '1']],
    ['EMQ.ENQUEUE on keys outside the queues', ['EMQ.ENQUEUE', '2', 'a', 'b', 'JOBx', 'p']],
    ['DEBUG', ['DEBUG', 'DIGEST']],
    ['SCRIPT FLUSH', ['SCRIPT', 'FLUSH']],
    ['CLIENT LIST', ['CLIENT', 'LIST']],
    ['MODULE LIST', ['MODULE', 'LIST']],
    ['SUBSCRIBE', ['SUBSCRIBE', 'emq']],
    ['SHUTDOWN', ['SHUTDOWN', 'NOSAVE']],
  ];
  const refusedBySelectors: readonly (readonly [string, readonly string[]])[] = [
    ['SET on a job row', ['SET', 'emq:{q}:job:JOB0KHTOWnGLuC', 'x']],
    ['HSET on a dedupe record', ['HSET', 'emq:{q}:dedupe:h', 'f', 'v']],
    ['DEL of a pending set', ['DEL', 'emq:{q}:pending']],
    ['ZADD to a job row', ['ZADD', 'emq:{q}:job:JOB0KHTOWnGLuC', '0', 'm']],
  ];

  /** A command refused by the ACL answers NOPERM; a script's refused call, an ACL failure. */
  const REFUSED = /^(NOPERM |ERR ACL failure in script: No permissions)/;

  async function refusal(username: string, command: readonly string[]): Promise<string> {
    const client = await standalone.client({ username, password: PASSWORD });
    try {
      const [name = '', ...args] = command;
      await client.call(name, ...args);
      return 'allowed';
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    } finally {
      client.disconnect();
    }
  }

  it.each([...refusedOfBoth, ...refusedBySelectors])(
    'is refused %s under the selector rule',
    async (_what, command) => {
      expect(await refusal(FUNCTIONS, command)).toMatch(REFUSED);
    },
  );

  it.each(refusedOfBoth)('is refused %s under the flat rule', async (_what, command) => {
    expect(await refusal(FUNCTIONS_FLAT, command)).toMatch(REFUSED);
  });

  it('cannot install the wire identity through the script path', async () => {
    const connection = await connect({
      urls: [standalone.url],
      username: FUNCTIONS,
      password: PASSWORD,
      executor: 'function',
      checkFence: false,
    });
    try {
      await expect(installFence(connection)).rejects.toMatchObject({ retryable: false });
    } finally {
      await connection.close();
    }
  });

  it('leaves the dataset as it was after every refusal', async () => {
    const admin = await standalone.client();
    const before = await admin.call('DEBUG', 'DIGEST');
    for (const [, command] of [...refusedOfBoth, ...refusedBySelectors]) {
      await refusal(FUNCTIONS, command);
    }
    expect(await admin.call('DEBUG', 'DIGEST')).toBe(before);
    admin.disconnect();
  });
});

describe('the fence installer user', () => {
  it.each([
    ['FLUSHALL', ['FLUSHALL']],
    ['CONFIG GET', ['CONFIG', 'GET', 'maxmemory']],
    ['KEYS', ['KEYS', '*']],
    ['writing a job row', ['HSET', 'emq:{q}:job:JOB0KHTOWnGLuC', 'state', 'pending']],
    ['EMQ.ENQUEUE', ['EMQ.ENQUEUE', '2', 'emq:{q}:job:JOBx', 'emq:{q}:pending', 'JOBx', 'p']],
    ['EVAL', ['EVAL', 'return 1', '0']],
    ['a key other than {emq}:version', ['SET', 'other', '1']],
  ] as const)('is refused %s', async (_what, command) => {
    const client = await standalone.client({ username: FENCE, password: PASSWORD });
    try {
      const [name, ...args] = command;
      await expect(client.call(name, ...args)).rejects.toThrow(/^NOPERM/);
    } finally {
      client.disconnect();
    }
  });
});
