// A write whose reply is lost must never become two jobs. A proxy lets
// the server run the admission and then drops its reply and the connection; iovalkey's
// auto-resend is off, so the admission's own resend, or the caller's retry after a 503 / a
// batch item failure (same key, same id, same message), finds the one job. Every path, both
// families, standalone and cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServices, serve } from '../../functions/http/serve.js';
import { handleSqsBatch } from '../../functions/sqs/batch.js';
import { type Connection, type ConnectOptions, connect } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import { fixture, withHeader } from '../fixtures/http/events.js';
import { redelivered, sqsEvent, sqsRecord } from '../fixtures/sqs/records.js';
import { admissionOf, connectTo, jobsOf, withFencedServers } from '../support/emq.js';
import { type ClusterHandle, randomQueue, type ServerHandle } from '../support/servers.js';
import { useSqs } from '../support/sqs.js';
import { waitFor } from '../support/wait.js';
import {
  type DropTrigger,
  type ReplyDropProxy,
  startReplyDropProxy,
} from './support/reply-drop-proxy.js';

let standalone: ServerHandle;
let cluster: ClusterHandle;
withFencedServers((servers) => {
  ({ standalone, cluster } = servers);
});

/** One proxy per node, announced by the cluster itself so every client goes through them. */
const proxies: ReplyDropProxy[] = [];
const proxyOf = new Map<string, ReplyDropProxy>();
const trigger: DropTrigger = { marker: undefined };
const sqs = useSqs();

beforeAll(async () => {
  const nodes = [standalone, ...cluster.nodes];
  for (const node of nodes) {
    const proxy = await startReplyDropProxy(node.port, trigger);
    proxies.push(proxy);
    proxyOf.set(node.url, proxy);
  }
  for (const node of cluster.nodes) {
    const admin = await node.client();
    await admin.config('SET', 'cluster-announce-port', String(proxyOf.get(node.url)?.port));
    admin.disconnect();
  }
  await cluster.waitForHealthy();
  // The new ports reach the other nodes by gossip: wait until every node announces only them.
  const proxied = new Set(cluster.nodes.map((node) => proxyOf.get(node.url)?.port));
  await waitFor('every node to announce the proxies', 20_000, async () => {
    for (const node of cluster.nodes) {
      const admin = await node.client();
      const slots = (await admin.call('CLUSTER', 'SLOTS')) as unknown[][];
      admin.disconnect();
      const ports = slots.flatMap((range) =>
        range.slice(2).map((entry) => Number((entry as unknown[])[1])),
      );
      const direct = ports.find((port) => !proxied.has(port));
      if (direct !== undefined) return `${node.url} still announces port ${direct}`;
    }
    return undefined;
  });
});

afterAll(async () => {
  for (const node of cluster.nodes) {
    const admin = await node.client();
    await admin.config('SET', 'cluster-announce-port', '0');
    admin.disconnect();
  }
  await Promise.all(proxies.map((proxy) => proxy.close()));
});

const opened: Connection[] = [];
afterAll(() => Promise.all(opened.map((connection) => connection.close())));

describe.each([
  ['standalone', 'native'],
  ['standalone', 'function'],
  ['cluster', 'native'],
  ['cluster', 'function'],
] as const)('a lost reply on a %s server, %s family', (topology, family) => {
  let conn: Connection;
  let reader: Connection;
  beforeAll(async () => {
    const options: ConnectOptions = { family, commandTimeoutMs: 1_000 };
    const seeds =
      topology === 'cluster'
        ? { urls: cluster.nodes.map((node) => proxyOf.get(node.url)?.url ?? ''), cluster: true }
        : { urls: [proxyOf.get(standalone.url)?.url ?? ''] };
    conn = await connect({ ...seeds, ...options });
    opened.push(conn);
    reader = await connectTo(topology === 'cluster' ? cluster : standalone);
  });
  const services: HttpServices = {
    admission: () => admissionOf(conn, { maxPayloadBytes: 1024 }),
  };
  /**
   * What the caller hears when the reply is lost: on either topology the closed connection's
   * call fails at once and is sent again once the connection is back (by the admission's own
   * resend, or a cluster client's re-run of a pipeline that failed with "Connection is
   * closed."): the resent admission finds the one job, so 201 (a minted id this invocation
   * proposed, or a keyless POST: the job is the one it wrote) or 200 (a caller's id, which a
   * replay names too) is as right as 503, when the connection was not back in time.
   */
  const lostAnswers = [503, 200, 201];
  /** Arms the proxies for one drop: the queue's name is in every admission's keys. */
  const dropNext = (queue: string) => {
    trigger.marker = queue;
  };
  const totalDropped = () => proxies.reduce((sum, proxy) => sum + proxy.dropped(), 0);

  it('keyless POST: one job, not two (answered "retry", or in a cluster by its resend)', async () => {
    const queue = randomQueue('lost-post');
    const before = totalDropped();
    dropNext(queue);
    const served = await serve(fixture('v2-post', { queue }), 'req-1', services);
    expect(totalDropped()).toBe(before + 1);
    expect(lostAnswers).toContain(served.response.statusCode);
    expect((await jobsOf(reader, queue)).rows).toHaveLength(1);
  });

  it('keyed POST: one job, not two; the retry with its key answers 200 with it', async () => {
    const queue = randomQueue('lost-key');
    const event = withHeader(fixture('v2-post', { queue }), 'Idempotency-Key', 'order-1');
    const before = totalDropped();
    dropNext(queue);
    expect(lostAnswers).toContain((await serve(event, 'req-2', services)).response.statusCode);
    expect(totalDropped()).toBe(before + 1);
    const retried = await serve(event, 'req-3', services);
    expect(retried.response.statusCode).toBe(200);
    const id = JSON.parse(retried.response.body).id as string;
    expect(await jobsOf(reader, queue)).toEqual({ rows: [id], pending: [id] });
  });

  it('PUT with a caller id: one job, not two; the retry answers 200', async () => {
    const queue = randomQueue('lost-put');
    // A fresh id: caller ids older than EMQ_CALLER_ID_MAX_AGE_MS (a day) are refused.
    const event = fixture('v2-put', { queue, id: mintId() });
    const before = totalDropped();
    dropNext(queue);
    expect(lostAnswers).toContain((await serve(event, 'req-4', services)).response.statusCode);
    expect(totalDropped()).toBe(before + 1);
    expect((await serve(event, 'req-5', services)).response.statusCode).toBe(200);
    expect((await jobsOf(reader, queue)).rows).toHaveLength(1);
  });

  it('SQS batch: the redelivery admits each record exactly once, none dead-lettered', async () => {
    const queue = randomQueue('lost-sqs');
    const records = [0, 1, 2].map((i) => sqsRecord({ queue, body: `job ${i}` }));
    const before = totalDropped();
    dropNext(queue);
    const dlq = sqs().dlq();
    const deps = { admission: admissionOf(conn, { dlqUrl: dlq.url }), sqs: sqs().client };
    const first = await handleSqsBatch(sqsEvent(records), deps);
    expect(totalDropped()).toBe(before + 1);
    expect([3, 0]).toContain(first.batchItemFailures.length);
    const again = await handleSqsBatch(
      sqsEvent(records.map((record) => redelivered(record, 1))),
      deps,
    );
    expect(again.batchItemFailures).toEqual([]);
    const jobs = await jobsOf(reader, queue);
    expect(jobs.rows).toHaveLength(3);
    expect(jobs.pending).toEqual(jobs.rows);
    // A lost reply is never the record's fault: nothing is dead-lettered.
    expect(await dlq.letters()).toEqual([]);
  });
});
