// SQS redelivery on real servers (docs/wire.md, "Idempotency records"; README.md, "The SQS face"):
// a batch handled twice, before or after a timeout that left the writes to finish on the server,
// admits each message exactly once.
import type { SQSRecord } from 'aws-lambda';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handleSqsBatch } from '../../functions/sqs/batch.js';
import { type Connection, UnavailableError } from '../../src/index.js';
import { jobIdAt, mintId } from '../../src/keyspace/ids.js';
import { captureLogs, recordLines } from '../fixtures/sqs/logs.js';
import { queueOn } from '../fixtures/sqs/placement.js';
import { redelivered, sqsEvent, sqsRecord } from '../fixtures/sqs/records.js';
import { admissionOf, connectTo, jobsOf, withFencedServers } from '../support/emq.js';
import { type ClusterHandle, randomQueue, type ServerHandle } from '../support/servers.js';
import { type Dlq, useSqs } from '../support/sqs.js';
import { waitFor } from '../support/wait.js';

let standalone: ServerHandle;
let cluster: ClusterHandle;

withFencedServers((servers) => {
  ({ standalone, cluster } = servers);
});

const lines = captureLogs();
const sqs = useSqs();

/** Ten first deliveries to `queue`: eight keyed by their messageId, two by a caller id. */
function batchOf(queue: string): SQSRecord[] {
  const sentAt = Date.now();
  return Array.from({ length: 10 }, (_, i) =>
    sqsRecord({
      queue,
      body: `job ${i}`,
      sentAt: sentAt + i,
      ...(i >= 8 ? { jobId: mintId() } : {}),
    }),
  );
}

/**
 * A connection whose commands time out after 1 s: a paused node's writes time out, since the
 * pause lasts until the batch is answered, and a loaded machine still answers the others in
 * time. Opening one runs its first commands on fresh sockets under that timeout, which a loaded
 * machine can miss; the open then fails as unavailable (within the connect timeout) and is
 * tried again: an open connection is what these tests need, not one that opens on the first try.
 */
async function impatientTo(
  target: ServerHandle | ClusterHandle,
  family: 'native' | 'function',
): Promise<Connection> {
  for (let tries = 1; ; tries++) {
    try {
      return await connectTo(target, { family, commandTimeoutMs: 1_000 });
    } catch (error) {
      if (!(error instanceof UnavailableError) || tries >= 10) throw error;
    }
  }
}

function statuses(): unknown[] {
  return recordLines(lines).map((line) => line.outcome);
}

/** Far past any wait here: it only ends a pause that a failed test left behind. */
const PAUSE_CAP_MS = 60_000;

/**
 * Holds every write on `targets` until `during` has settled, so past the connection's command
 * timeout however slowly a loaded machine runs it; then the held writes run.
 */
async function whilePaused<T>(
  targets: readonly ServerHandle[],
  during: () => Promise<T>,
): Promise<T> {
  const admins = await Promise.all(targets.map((node) => node.client()));
  try {
    await Promise.all(
      admins.map((admin) => admin.call('CLIENT', 'PAUSE', String(PAUSE_CAP_MS), 'WRITE')),
    );
    return await during();
  } finally {
    await Promise.all(admins.map((admin) => admin.call('CLIENT', 'UNPAUSE')));
    for (const admin of admins) admin.disconnect();
  }
}

describe.each([
  ['standalone', 'native'],
  ['standalone', 'function'],
  ['cluster', 'native'],
  ['cluster', 'function'],
] as const)('on a %s server with the %s family', (topology, family) => {
  let conn: Connection;
  let impatient: Connection;
  const target = () => (topology === 'cluster' ? cluster : standalone);
  const primaries = async () => (topology === 'cluster' ? await cluster.primaries() : [standalone]);

  beforeAll(async () => {
    conn = await connectTo(target(), { family });
    impatient = await impatientTo(target(), family);
  });

  // Every record here is good input: none may reach the DLQ (checked in afterEach).
  let dlq: Dlq;
  beforeEach(() => {
    dlq = sqs().dlq();
  });
  afterEach(async () => {
    expect(await dlq.letters()).toEqual([]);
  });

  const handle = (records: SQSRecord[], connection = conn) =>
    handleSqsBatch(sqsEvent(records), {
      admission: admissionOf(connection, { dlqUrl: dlq.url }),
      sqs: sqs().client,
    });

  it('admits each message once when the same batch is handled twice', async () => {
    const queue = randomQueue('twice');
    const batch = batchOf(queue);
    expect(await handle(batch)).toEqual({ batchItemFailures: [] });
    expect(statuses()).toEqual(Array(10).fill('enqueued'));
    const first = await jobsOf(conn, queue);

    lines.length = 0;
    expect(await handle(batch)).toEqual({ batchItemFailures: [] });
    expect(statuses()).toEqual(Array(10).fill('duplicate'));
    expect(await jobsOf(conn, queue)).toEqual(first);
    expect(first.rows).toHaveLength(10);
    expect(first.pending).toEqual(first.rows);
  });

  it('admits each message once when a redelivery repeats half of an earlier batch', async () => {
    const queue = randomQueue('overlap');
    const batch = batchOf(queue);
    expect(await handle(batch.slice(0, 5))).toEqual({ batchItemFailures: [] });
    const again = [...batch.slice(0, 5).map((record) => redelivered(record)), ...batch.slice(5)];
    lines.length = 0;
    expect(await handle(again)).toEqual({ batchItemFailures: [] });
    expect(statuses()).toEqual([...Array(5).fill('duplicate'), ...Array(5).fill('enqueued')]);
    const jobs = await jobsOf(conn, queue);
    expect(jobs.rows).toHaveLength(10);
    expect(jobs.pending).toEqual(jobs.rows);
  });

  it('admits each message once when redelivered after a timeout mid-batch', async () => {
    const queue = randomQueue('timeout');
    const batch = batchOf(queue);
    const timedOut = await whilePaused(await primaries(), () => handle(batch, impatient));
    // Nothing answered in time, so every record is retried; the server still holds the writes.
    expect(timedOut.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(
      batch.map((record) => record.messageId),
    );
    expect(new Set(recordLines(lines).map((line) => line.code))).toEqual(
      new Set(['EMQ_UNAVAILABLE']),
    );
    // The held writes run when the pause ends: the first attempt did admit the jobs.
    await waitFor('the held writes', 20_000, async () => {
      const rows = (await jobsOf(conn, queue)).rows.length;
      return rows >= 10 ? undefined : `${rows} of 10 rows`;
    });
    const written = await jobsOf(conn, queue);
    expect(written.rows).toHaveLength(10);

    lines.length = 0;
    const retried = await handle(batch.map((record) => redelivered(record)));
    expect(retried).toEqual({ batchItemFailures: [] });
    expect(statuses()).toEqual(Array(10).fill('duplicate'));
    const jobs = await jobsOf(conn, queue);
    expect(jobs).toEqual(written);
    expect(jobs.pending).toEqual(jobs.rows);
    expect([...recordLines(lines).map((line) => line.id)].sort()).toEqual(jobs.rows);
  });
});

describe.each(['native', 'function'] as const)(
  'a caller id judged by when its message was sent (%s)',
  (family) => {
    it('handles as a duplicate, never a dead letter, a redelivery whose id is a day old now but was fresh when sent', async () => {
      const conn = await connectTo(standalone, { family });
      const queue = randomQueue('aged');
      const sentAt = Date.now() - 25 * 3_600_000;
      // Minted when its message was sent, 25 hours ago; its job was written then.
      const id = jobIdAt(sentAt, 7);
      const record = sqsRecord({ queue, jobId: id, body: 'late', sentAt });
      const dlq = sqs().dlq();
      const deps = {
        admission: admissionOf(conn, { dlqUrl: dlq.url, callerIdMaxAgeMs: 86_400_000 }),
        sqs: sqs().client,
      };
      const first = await handleSqsBatch(sqsEvent([record]), deps);
      expect(first).toEqual({ batchItemFailures: [] });
      expect(await dlq.letters()).toEqual([]);
      lines.length = 0;
      const again = await handleSqsBatch(sqsEvent([redelivered(record)]), deps);
      expect(again).toEqual({ batchItemFailures: [] });
      expect(statuses()).toEqual(['duplicate']);
      expect(await dlq.letters()).toEqual([]);
      expect(await jobsOf(conn, queue)).toEqual({ rows: [id], pending: [id] });
    });
  },
);

describe.each(['native', 'function'] as const)('on a cluster with the %s family', (family) => {
  it('admits each message once when one node times out mid-batch and its records come back', async () => {
    const conn = await connectTo(cluster, { family });
    const impatient = await impatientTo(cluster, family);
    const [slow, ...others] = await cluster.primaries();
    if (slow === undefined || others.length === 0) throw new Error('expected 3 primaries');
    const queues = [slow, ...others].map((node) => queueOn(conn, node, 'mid'));
    const batch = Array.from({ length: 9 }, (_, i) =>
      sqsRecord({ queue: queues[i % queues.length], body: `job ${i}` }),
    );
    const onSlow = batch.filter((_, i) => i % queues.length === 0);

    const dlq = sqs().dlq();
    const deps = { admission: admissionOf(impatient, { dlqUrl: dlq.url }), sqs: sqs().client };
    const response = await whilePaused([slow], () => handleSqsBatch(sqsEvent(batch), deps));
    // The other nodes answered in time: only the paused node's records come back.
    expect(response.batchItemFailures).toEqual(
      onSlow.map((record) => ({ itemIdentifier: record.messageId })),
    );
    const held = queues[0] as string;
    await waitFor('the held writes on the paused node', 20_000, async () => {
      const rows = (await jobsOf(conn, held)).rows.length;
      return rows >= 3 ? undefined : `${rows} of 3 rows`;
    });

    const retried = await handleSqsBatch(sqsEvent(onSlow.map((record) => redelivered(record))), {
      admission: admissionOf(conn, { dlqUrl: dlq.url }),
      sqs: sqs().client,
    });
    expect(retried).toEqual({ batchItemFailures: [] });
    expect(await dlq.letters()).toEqual([]);
    for (const queue of queues) {
      const jobs = await jobsOf(conn, queue);
      expect(jobs.rows).toHaveLength(3);
      expect(jobs.pending).toEqual(jobs.rows);
    }
  });
});
