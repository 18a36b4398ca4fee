// FIFO sources on real servers (README.md, "The SQS face"): a record that must be retried stops its
// message group; the group's later records are neither written nor dead-lettered, other groups go
// on, and a record the DLQ accepted does not stop its group.
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handleSqsBatch } from '../../functions/sqs/batch.js';
import type { Connection } from '../../src/index.js';
import { captureLogs, recordLines } from '../fixtures/sqs/logs.js';
import { queueOn } from '../fixtures/sqs/placement.js';
import { redelivered, sqsEvent, sqsRecord } from '../fixtures/sqs/records.js';
import { admissionOf, connectTo, jobsOf, recordOf, withFencedServers } from '../support/emq.js';
import { type ClusterHandle, randomQueue, type ServerHandle } from '../support/servers.js';
import { useSqs } from '../support/sqs.js';
import { waitFor } from '../support/wait.js';

let standalone: ServerHandle;
let cluster: ClusterHandle;

withFencedServers((servers) => {
  ({ standalone, cluster } = servers);
});

const lines = captureLogs();
const sqs = useSqs();

function failures(response: { batchItemFailures: { itemIdentifier: string }[] }): string[] {
  return response.batchItemFailures.map((failure) => failure.itemIdentifier);
}

function ids(...records: SQSRecord[]): string[] {
  return records.map((record) => record.messageId);
}

async function recordExists(conn: Connection, queue: string, record: SQSRecord) {
  return (await recordOf(conn, queue, 'sqs', record.messageId)) !== null;
}

describe.each(['native', 'function'] as const)(
  'on a standalone server with the %s family',
  (family) => {
    it('stops a group at a permanent failure that has no DLQ to go to', async () => {
      const conn = await connectTo(standalone, { family });
      const queue = randomQueue('fifo');
      const a1 = sqsRecord({ groupId: 'a', queue, body: 'x', encoding: 'gzip' });
      const a2 = sqsRecord({ groupId: 'a', queue, body: 'a2' });
      const b1 = sqsRecord({ groupId: 'b', queue, body: 'b1' });
      const b2 = sqsRecord({ groupId: 'b', queue, body: 'b2' });
      const response = await handleSqsBatch(sqsEvent([a1, b1, a2, b2]), {
        admission: admissionOf(conn),
        sqs: sqs().client,
      });
      expect(failures(response)).toEqual(ids(a1, a2));
      expect(sqs().requests).toEqual([]);
      expect(recordLines(lines).map((line) => line.disposition)).toEqual([
        'undelivered',
        'admitted',
        'skipped',
        'admitted',
      ]);
      expect((await jobsOf(conn, queue)).rows).toHaveLength(2);
      expect(await recordExists(conn, queue, a2)).toBe(false);
    });

    it('stops a group when its dead letter is refused, and goes on when it is accepted', async () => {
      const conn = await connectTo(standalone, { family });
      const queue = randomQueue('fifo');
      // SQS refuses a body with a character outside its set (U+FFFF; a direct invoke can send
      // one): that letter alone is in Failed[].
      const a1 = sqsRecord({ groupId: 'a', queue: 'bad queue', body: 'refused \uffff letter' });
      const a2 = sqsRecord({ groupId: 'a', queue, body: 'a2' });
      const b1 = sqsRecord({ groupId: 'b', queue: 'bad queue', body: 'accepted letter' });
      const b2 = sqsRecord({ groupId: 'b', queue, body: 'b2' });
      const dlq = sqs().dlq({ fifo: true });
      const response = await handleSqsBatch(sqsEvent([a1, a2, b1, b2]), {
        admission: admissionOf(conn, { dlqUrl: dlq.url }),
        sqs: sqs().client,
      });
      expect(failures(response)).toEqual(ids(a1, a2));
      const letters = await dlq.letters();
      expect(letters.map((letter) => letter.body)).toEqual(['accepted letter']);
      expect(letters[0]).toMatchObject({ groupId: 'b', deduplicationId: b1.messageId });
      expect(sqs().requests[0]?.Entries?.map((entry) => entry.MessageGroupId)).toEqual(['a', 'b']);
      const jobs = await jobsOf(conn, queue);
      expect(jobs.rows).toHaveLength(1);
      expect(await recordExists(conn, queue, b2)).toBe(true);
      expect(await recordExists(conn, queue, a2)).toBe(false);
    });
  },
);

describe.each(['native', 'function'] as const)('on a cluster with the %s family', (family) => {
  it('short-circuits only the groups whose record timed out on a paused node', async () => {
    const conn = await connectTo(cluster, { family });
    // Long enough for a write to the unpaused node on a loaded machine; the paused node's
    // writes time out whatever it is, since the pause lasts until the batch is answered.
    const impatient = await connectTo(cluster, { family, commandTimeoutMs: 1_000 });
    const [slowNode, fastNode] = await cluster.primaries();
    if (slowNode === undefined || fastNode === undefined) throw new Error('expected primaries');
    const fast = queueOn(conn, fastNode, 'fast');
    const slow = queueOn(conn, slowNode, 'slow');
    const a1 = sqsRecord({ groupId: 'a', queue: fast, body: 'a1' });
    const a2 = sqsRecord({ groupId: 'a', queue: slow, body: 'a2' });
    const a3 = sqsRecord({ groupId: 'a', queue: fast, body: 'a3' });
    const b = [1, 2, 3].map((n) => sqsRecord({ groupId: 'b', queue: fast, body: `b${n}` }));
    const c1 = sqsRecord({ groupId: 'c', queue: 'bad queue', body: 'c1' });
    const c2 = sqsRecord({ groupId: 'c', queue: fast, body: 'c2' });
    const d1 = sqsRecord({ groupId: 'd', queue: slow, body: 'd1' });
    const d2 = sqsRecord({ groupId: 'd', queue: 'bad queue', body: 'd2' });
    const [b1, b2, b3] = b as [SQSRecord, SQSRecord, SQSRecord];
    const batch = [a1, b1, a2, c1, b2, d1, a3, c2, b3, d2];

    const admin = await slowNode.client();
    // Paused until the batch is answered (the cap only ends a pause a failed test left).
    await admin.call('CLIENT', 'PAUSE', '60000', 'WRITE');
    const dlq = sqs().dlq({ fifo: true });
    const response = await handleSqsBatch(sqsEvent(batch), {
      admission: admissionOf(impatient, { dlqUrl: dlq.url }),
      sqs: sqs().client,
    }).finally(async () => {
      await admin.call('CLIENT', 'UNPAUSE');
      admin.disconnect();
    });

    // a2 and d1 timed out; a3 and d2 come after them in their groups, so they were not tried.
    expect(failures(response)).toEqual(ids(a2, d1, a3, d2));
    expect((await dlq.letters()).map((letter) => letter.body)).toEqual(['c1']);
    expect(await recordExists(conn, fast, a3)).toBe(false);
    expect((await jobsOf(conn, fast)).rows).toHaveLength(5);
    // The held writes run when the pause ends: the timed-out attempt did admit a2 and d1.
    await waitFor('the held writes on the paused node', 20_000, async () => {
      const rows = (await jobsOf(conn, slow)).rows.length;
      return rows >= 2 ? undefined : `${rows} of 2 rows`;
    });

    // SQS delivers the four again: the timed-out two are found, the skipped two are done now.
    lines.length = 0;
    const again = await handleSqsBatch(
      sqsEvent([a2, d1, a3, d2].map((record) => redelivered(record))),
      { admission: admissionOf(conn, { dlqUrl: dlq.url }), sqs: sqs().client },
    );
    expect(again).toEqual({ batchItemFailures: [] });
    expect(
      recordLines(lines).map((line) =>
        line.disposition === 'admitted' ? line.outcome : line.disposition,
      ),
    ).toEqual(['duplicate', 'duplicate', 'enqueued', 'dead-lettered']);
    const letters = await dlq.letters();
    expect(letters.map((letter) => letter.body)).toEqual(['c1', 'd2']);
    expect(letters.map((letter) => letter.groupId)).toEqual(['c', 'd']);
    const onFast = await jobsOf(conn, fast);
    const onSlow = await jobsOf(conn, slow);
    expect(onFast.rows).toHaveLength(6);
    expect(onSlow.rows).toHaveLength(2);
    expect(onFast.pending).toEqual(onFast.rows);
    expect(onSlow.pending).toEqual(onSlow.rows);
  });
});
