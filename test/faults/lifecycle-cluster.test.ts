// A cluster of 3 primaries with a replica each (cluster-node-timeout 3000) through Lambda's
// lifecycle, the built bundles in processes of their own: containers frozen through a failover
// serve their first invocation after the thaw; a warm container routes around a primary that
// went silent (SIGSTOP) once its replica is promoted; a cold storm of 16 containers opens one
// connection per primary each, with few connect-time commands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '../../src/index.js';
import { connectTo, jobRowsOn } from '../support/emq.js';
import { installFenceEverywhere } from '../support/fence-ready.js';
import { type ClusterHandle, type ServerHandle, startCluster } from '../support/servers.js';
import {
  handOver,
  primariesOf,
  queuesOn,
  replicaOf,
  replicated,
  waitForRole,
} from './driver/topology.js';
import {
  type Container,
  containerConnections,
  invokeHttp,
  invokeSqs,
  postEvent,
  startContainer,
} from './support/containers.js';

const NODE_TIMEOUT_MS = 3_000;
const COMMAND_TIMEOUT_MS = 1_000;
const STORM = 16;

let cluster: ClusterHandle;
let env: Record<string, string>;

beforeAll(async () => {
  cluster = await startCluster({
    module: true,
    replicasPerPrimary: 1,
    nodeTimeoutMs: NODE_TIMEOUT_MS,
  });
  await installFenceEverywhere(cluster);
  env = {
    EMQ_URL: cluster.seeds.join(','),
    EMQ_CLUSTER: 'true',
    EMQ_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
    EMQ_CONNECT_TIMEOUT_MS: '2000',
  };
}, 180_000);

afterAll(async () => {
  for (const node of cluster?.nodes ?? []) if (node.pid !== undefined) resume(node);
  await cluster?.stop();
});

function resume(node: ServerHandle): void {
  try {
    process.kill(node.pid as number, 'SIGCONT');
  } catch {}
}

/** The job rows of `queue`, on whichever primary holds them now. */
async function jobs(queue: string): Promise<number> {
  return jobRowsOn(await primariesOf(cluster), queue);
}

/** A fresh slot map of the harness's (an earlier test may have failed a primary over). */
async function slotMap(): Promise<Connection> {
  return connectTo(cluster, { checkFence: false });
}

/** A queue on `primary`, as a fresh slot map places it. */
async function queueOn(primary: ServerHandle, prefix: string): Promise<string> {
  return (queuesOn(await slotMap(), primary, 1, prefix) as [string])[0];
}

describe('containers frozen through a failover', () => {
  it('serve their first invocation after the thaw (HTTP: 201, SQS: no record retried), each job once', async () => {
    const [primary] = await primariesOf(cluster);
    const httpQueue = await queueOn(primary as ServerHandle, 'thaw-http');
    const sqsQueue = await queueOn(primary as ServerHandle, 'thaw-sqs');
    const [http, sqs] = await Promise.all([
      startContainer('http', env),
      startContainer('sqs', { ...env, EMQ_DEFAULT_QUEUE: sqsQueue }),
    ]);
    expect((await invokeHttp(http, postEvent(httpQueue, 'warm'))).statusCode).toBe(201);
    expect(await invokeSqs(sqs, ['warm'])).toEqual([]);
    const heir = await replicaOf(cluster, primary as ServerHandle);
    freeze(http, sqs);
    try {
      await handOver(heir, () => {});
      await cluster.waitForHealthy();
    } finally {
      thaw(http, sqs);
    }
    const answer = await invokeHttp(http, postEvent(httpQueue, 'after the failover'));
    expect(answer.statusCode, answer.body).toBe(201);
    expect(await invokeSqs(sqs, ['after the failover'])).toEqual([]);
    expect(await jobs(httpQueue)).toBe(2);
    expect(await jobs(sqsQueue)).toBe(2);
    await Promise.all([http.process.stop(), sqs.process.stop()]);
  }, 120_000);
});

function freeze(...containers: Container[]): void {
  for (const container of containers) container.freeze();
}

function thaw(...containers: Container[]): void {
  for (const container of containers) container.thaw();
}

describe('a warm container whose primary goes silent (SIGSTOP)', () => {
  it('admits again within one command timeout (and a slot-map read) of the replica promotion, each keyed request once', async () => {
    const primaries = await primariesOf(cluster);
    const silent = primaries.at(-1) as ServerHandle;
    const queue = await queueOn(silent, 'silent');
    const heir = await replicaOf(cluster, silent);
    const http = await startContainer('http', env);
    expect((await invokeHttp(http, postEvent(queue, 'warm', 'warm'))).statusCode).toBe(201);
    // The containers run with acks 0, which promises no replica copy of the warm-up job: this
    // test is about routing around the silent primary, so the heir holds it before the stop.
    await replicated(silent, heir);
    process.kill(silent.pid as number, 'SIGSTOP');
    const stoppedAt = performance.now();
    let requests = 0;
    let promotedAt: number | undefined;
    const promoted = waitForRole(heir, 'primary', 60_000).then(() => {
      promotedAt = performance.now();
    });
    try {
      // Requests one after another, each keyed and resent with its key until it is admitted.
      let admittedAt: number | undefined;
      let sent = 0;
      for (let request = 0; admittedAt === undefined; request++) {
        requests += 1;
        const key = `silent-${request}`;
        for (;;) {
          const answer = await invokeHttp(http, postEvent(queue, key, key));
          sent += 1;
          if (answer.statusCode === 201 || answer.statusCode === 200) break;
          expect(answer.statusCode, answer.body).toBe(503);
          if (performance.now() - stoppedAt > 60_000) throw new Error('never admitted again');
        }
        if (promotedAt !== undefined) admittedAt = performance.now();
      }
      await promoted;
      const promotion = (promotedAt as number) - stoppedAt;
      const recovery = admittedAt - (promotedAt as number);
      console.log(
        `silent primary: promoted after ${Math.round(promotion)} ms, admitted again ${Math.round(recovery)} ms later (${sent} requests)`,
      );
      // One command timeout, a slot-map read (bounded by the connect timeout) and the request.
      expect(recovery).toBeLessThan(COMMAND_TIMEOUT_MS + 2_000 + 1_000);
    } finally {
      resume(silent);
      await http.process.stop();
    }
    await waitForRole(silent, 'replica');
    await cluster.waitForHealthy();
    // Each keyed request once, however often it was resent, and the warm-up's.
    expect(await jobs(queue)).toBe(requests + 1);
  }, 120_000);
});

/** Calls per command on `node` since its last CONFIG RESETSTAT (INFO commandstats). */
async function commandCalls(node: ServerHandle): Promise<Map<string, number>> {
  const client = await node.client(QUIET);
  try {
    const text = String(await client.info('commandstats'));
    const calls = new Map<string, number>();
    for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      calls.set(match[1] as string, Number(match[2]));
    }
    return calls;
  } finally {
    client.disconnect();
  }
}

/** A harness client that sends nothing on connect (no INFO ready check) to count around. */
const QUIET = { enableReadyCheck: false } as const;

async function onEvery(nodes: readonly ServerHandle[], ...args: string[]): Promise<void> {
  await Promise.all(
    nodes.map(async (node) => {
      const client = await node.client(QUIET);
      try {
        await client.call(args[0] as string, ...args.slice(1));
      } finally {
        client.disconnect();
      }
    }),
  );
}

describe(`a cold storm of ${STORM} containers`, () => {
  it('admits every first request, one connection per primary each, few connect-time commands', async () => {
    await cluster.waitForHealthy();
    const primaries = await primariesOf(cluster);
    // The harness's own reader leaves the primaries, so that what they see is the storm.
    const map = await slotMap();
    const queues = primaries.flatMap((node) => queuesOn(map, node, 6, 'storm')).slice(0, STORM);
    await onEvery(primaries, 'CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    // Every node: a container reads the slot map from any of them, replicas too.
    await onEvery(cluster.nodes, 'CONFIG', 'RESETSTAT');
    // One seed, as a deployment's configuration endpoint: a seed that is a replica would be
    // connected (READONLY) by every container for nothing.
    // The family self-managed stacks deploy (their nodes load the module).
    const seed = { ...env, EMQ_URL: (primaries[0] as ServerHandle).url, EMQ_EXECUTOR: 'native' };
    const containers = await Promise.all(queues.map(() => startContainer('http', seed)));
    const answers = await Promise.all(
      containers.map((container, at) =>
        invokeHttp(container, postEvent(queues[at] as string, `storm ${at}`)),
      ),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual(queues.map(() => 201));
    const calls = await Promise.all(cluster.nodes.map(commandCalls));
    const connections = await Promise.all(primaries.map(containerConnections));
    expect(connections).toEqual(primaries.map(() => STORM));
    const total = new Map<string, number>();
    for (const node of calls) {
      for (const [name, count] of node) total.set(name, (total.get(name) ?? 0) + count);
    }
    // Not connect-time: the storm's admissions and the writes they make, the replication
    // stream a replica applies (MULTI/EXEC, its primary's SELECT and PING, REPLCONF), and the
    // harness's reset.
    const others = ['emq.admit', 'hset', 'zadd', 'multi', 'exec', 'select', 'ping', 'replconf'];
    for (const name of [...others, 'config|resetstat']) total.delete(name);
    const perContainer = [...total.values()].reduce((sum, count) => sum + count, 0) / STORM;
    console.log(
      `cold storm: ${STORM} containers, connect-time commands per container ${perContainer}: ${JSON.stringify(Object.fromEntries(total))}`,
    );
    // At most 3 per primary, and the slot map's read: CLUSTER SLOTS on a connection of its
    // own, which iovalkey names (CLIENT SETNAME).
    expect(perContainer).toBeLessThanOrEqual(3 * primaries.length + 2);
    await Promise.all(containers.map((container) => container.process.stop()));
  }, 180_000);
});
