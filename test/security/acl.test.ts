// Least privilege, as deployed: on each server kind (ElastiCache-like without the module, the
// function family; self-managed with the module, the native family), standalone, cluster and
// a primary with a replica, the users run under the rules read from the synthesized template
// (acl-setup.ts). The installer installs identity and library; the functions' user connects
// with every check, serves every HTTP route and SQS case, confirms with WAIT, and reads back
// as readJob and the CLI do. What they are refused is acl-refusals.test.ts.
import type { SQSBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as httpHandler } from '../../functions/http/handler.js';
import { resetContainer } from '../../functions/shared/connection.js';
import { type LogSink, setLogSink } from '../../functions/shared/log.js';
import { handler as sqsHandler } from '../../functions/sqs/handler.js';
import { connect, enqueue, install, listPending, mintJobId, readJob } from '../../src/index.js';
import { fixture, lambdaContext, withBody } from '../fixtures/http/events.js';
import { clearEmqEnv, configureContainer, invoke } from '../fixtures/http/invoke.js';
import { redelivered, sqsEvent, sqsRecord } from '../fixtures/sqs/records.js';
import { connectTo, jobsOf } from '../support/emq.js';
import {
  type ClusterHandle,
  type ReplicatedHandle,
  randomQueue,
  type ServerHandle,
  startCluster,
  startReplicated,
  startStandalone,
} from '../support/servers.js';
import {
  aclArgs,
  aclDir,
  FUNCTIONS_USER,
  INSTALLER_USER,
  KINDS,
  PASSWORD,
  type ServerKind,
} from './acl-setup.js';

type Target = ServerHandle | ClusterHandle;
interface Setup {
  readonly standalone: ServerHandle;
  readonly cluster: ClusterHandle;
  readonly replicated: ReplicatedHandle;
}

const setups = new Map<ServerKind, Setup>();
let removeDir: () => Promise<void>;
let previousSink: LogSink;

beforeAll(async () => {
  const { dir, remove } = await aclDir();
  removeDir = remove;
  for (const kind of KINDS) {
    const options = { module: kind.module, extraArgs: await aclArgs(dir, kind) };
    const [standalone, cluster, replicated] = await Promise.all([
      startStandalone(options),
      startCluster(options),
      startReplicated({ ...options, replicas: 1 }),
    ]);
    setups.set(kind, { standalone, cluster, replicated });
  }
  previousSink = setLogSink(() => {});
});

afterAll(async () => {
  setLogSink(previousSink);
  await resetContainer();
  clearEmqEnv();
  await Promise.all(
    [...setups.values()].flatMap((s) => [
      s.standalone.stop(),
      s.cluster.stop(),
      s.replicated.stop(),
    ]),
  );
  await removeDir?.();
});

function urlsOf(target: Target): { urls: string[]; cluster: boolean } {
  return target.kind === 'cluster'
    ? { urls: [...target.seeds], cluster: true }
    : { urls: [target.url], cluster: false };
}

async function primariesOf(target: Target): Promise<ServerHandle[]> {
  return target.kind === 'cluster' ? target.primaries() : [target];
}

/** Wipes keys and functions as the harness, then installs as the deployed installer user. */
async function installAsInstaller(kind: ServerKind, target: Target): Promise<boolean[]> {
  for (const node of await primariesOf(target)) {
    const admin = await node.client();
    await admin.flushall();
    await admin.call('FUNCTION', 'FLUSH');
    admin.disconnect();
  }
  const installer = await connect({
    ...urlsOf(target),
    username: INSTALLER_USER,
    password: PASSWORD,
    executor: kind.executor,
    checkFence: false,
  });
  try {
    return (await install(installer)).map((reading) => reading.ok);
  } finally {
    await installer.close();
  }
}

const asFunctions = { username: FUNCTIONS_USER, password: PASSWORD };

describe.each(KINDS)('on an $name', (kind) => {
  const setup = (): Setup => setups.get(kind) as Setup;

  describe.each([
    ['standalone', (s: Setup): Target => s.standalone],
    ['cluster', (s: Setup): Target => s.cluster],
  ] as const)('%s', (_topology, targetOf) => {
    it('lets the installer install identity and library on every primary; the functions then connect with every check', async () => {
      const target = targetOf(setup());
      const readings = await installAsInstaller(kind, target);
      expect(readings).toEqual(readings.map(() => true));
      expect(readings.length).toBe((await primariesOf(target)).length);
      const connection = await connectTo(target, { ...asFunctions, executor: kind.executor });
      expect(connection.executor.kind).toBe(kind.executor);
    });

    it('serves every HTTP route as the functions user: POST, keyed POST and its replay, PUT, a conflicting PUT, GET', async () => {
      const target = targetOf(setup());
      await configureContainer(target, {
        EMQ_EXECUTOR: kind.executor,
        EMQ_USERNAME: FUNCTIONS_USER,
        EMQ_PASSWORD: PASSWORD,
      });
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
      const jobs = await jobsOf(await connectTo(target), queue);
      expect(jobs.rows).toHaveLength(3);
      expect(jobs.pending).toEqual(jobs.rows);
    });

    it('admits SQS first deliveries, redeliveries and caller ids as the functions user', async () => {
      const target = targetOf(setup());
      await configureContainer(target, {
        EMQ_EXECUTOR: kind.executor,
        EMQ_USERNAME: FUNCTIONS_USER,
        EMQ_PASSWORD: PASSWORD,
      });
      const queue = randomQueue('acl-sqs');
      const sentAt = Date.now();
      const first = sqsRecord({ queue, body: 'first', sentAt });
      const safe = sqsRecord({ queue, body: 'redelivered', sentAt, receiveCount: 2 });
      const own = sqsRecord({ queue, body: 'own id', jobId: mintJobId() });
      const handle = async (records: ReturnType<typeof sqsRecord>[]) =>
        (await sqsHandler(sqsEvent(records), lambdaContext())) as SQSBatchResponse;
      expect(await handle([first, safe, own])).toEqual({ batchItemFailures: [] });
      // The same message again, as a redelivery and as a first delivery proposing another id.
      const again = { ...first, attributes: { ...first.attributes, SentTimestamp: '1' } };
      expect(await handle([redelivered(first), again])).toEqual({ batchItemFailures: [] });
      const jobs = await jobsOf(await connectTo(target), queue);
      expect(jobs.rows).toHaveLength(3);
      expect(jobs.pending).toEqual(jobs.rows);
    });

    it('reads back as readJob (emq get) and the pending listing (emq pending) do', async () => {
      const target = targetOf(setup());
      const connection = await connectTo(target, { ...asFunctions, executor: kind.executor });
      const queue = randomQueue('acl-read');
      const admitted = await enqueue(connection, { queue, payload: 'read me' });
      const row = await readJob(connection, queue, admitted.id);
      expect(row?.payload.toString()).toBe('read me');
      expect(await listPending(connection, queue, 10)).toEqual({ ids: [admitted.id], total: 1 });
    });
  });

  it('confirms every write with WAIT on a primary with a replica, the duplicate answer too', async () => {
    const { primary } = setup().replicated;
    expect(await installAsInstaller(kind, primary)).toEqual([true]);
    const connection = await connectTo(primary, {
      ...asFunctions,
      executor: kind.executor,
      ackReplicas: 1,
      ackTimeoutMs: 5_000,
    });
    const queue = randomQueue('acl-wait');
    const request = { queue, payload: 'confirmed', idempotencyKey: 'acl-wait-key' };
    const first = await enqueue(connection, request);
    const again = await enqueue(connection, request);
    expect([first.status, again.status]).toEqual(['enqueued', 'duplicate']);
    expect(again.id).toBe(first.id);
  });
});
