// A mixed SQS batch on real servers (docs/reliability.md, "Outcomes"; README.md, "The SQS face"):
// each record gets exactly its outcome; the retryable ones come back as batch item failures, the
// permanent ones land in the DLQ with their body, attributes and reason, and only the admitted ones
// leave rows.
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handleSqsBatch } from '../../functions/sqs/batch.js';
import { type Connection, enqueue, readJob } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import { slotOf, wireKey } from '../../src/keyspace/keyspace.js';
import { captureLogs, recordLines } from '../fixtures/sqs/logs.js';
import { queueOn } from '../fixtures/sqs/placement.js';
import { binaryAttribute, sqsEvent, sqsRecord } from '../fixtures/sqs/records.js';
import { admissionOf, connectTo, jobsOf, withFencedServers } from '../support/emq.js';
import { type ClusterHandle, randomQueue, type ServerHandle } from '../support/servers.js';
import { type Dlq, type StoredLetter, useSqs } from '../support/sqs.js';

const MAX_PAYLOAD = 1_024;
// Caller ids are judged by their age: minted as the file starts.
const SEEDED_ID = mintId();
const SAME_ID = mintId();

let standalone: ServerHandle;
let cluster: ClusterHandle;

withFencedServers((servers) => {
  ({ standalone, cluster } = servers);
});

const lines = captureLogs();
const sqs = useSqs();

interface Mixed {
  readonly records: Record<string, SQSRecord>;
  readonly queue: string;
  readonly wrongType: string;
}

/**
 * One record per outcome; `queue` already holds two jobs the batch runs into. `conflictBody`:
 * the conflicting record's body (any but the seeded job's payload).
 */
async function mixedBatch(
  conn: Connection,
  makeQueue: (prefix: string) => string = randomQueue,
  conflictBody = 'another payload',
): Promise<Mixed> {
  const queue = makeQueue('mixed');
  const wrongType = makeQueue('wrongtype');
  await enqueue(conn, { queue, id: SEEDED_ID, payload: 'original' });
  await enqueue(conn, { queue, id: SAME_ID, payload: 'same' });
  await conn.client.set(`emq:{${wrongType}}:pending`, 'not a sorted set');
  const records = {
    valid: sqsRecord({ queue, body: 'a valid job' }),
    binary: sqsRecord({
      queue,
      body: Buffer.from([0, 255, 10, 13]).toString('base64'),
      encoding: 'base64',
      attributes: { trace: binaryAttribute(Buffer.from([7, 7])) },
    }),
    sameId: sqsRecord({ queue, jobId: SAME_ID, body: 'same' }),
    badQueue: sqsRecord({ queue: 'bad queue!', body: 'b' }),
    badId: sqsRecord({ queue, jobId: 'JOB-not-an-id', body: 'c' }),
    oversize: sqsRecord({ queue, body: 'x'.repeat(MAX_PAYLOAD + 1) }),
    conflict: sqsRecord({ queue, jobId: SEEDED_ID, body: conflictBody }),
    wrongType: sqsRecord({ queue: wrongType, body: 'd' }),
    badEncoding: sqsRecord({ queue, body: 'e', encoding: 'gzip' }),
  };
  return { records, queue, wrongType };
}

const PERMANENT = {
  badQueue: 'EMQ_INVALID_QUEUE',
  badId: 'EMQ_INVALID_ID',
  oversize: 'EMQ_PAYLOAD_TOO_LARGE',
  conflict: 'EMQ_CONFLICT',
  wrongType: 'EMQ_WRONGTYPE',
  badEncoding: 'EMQ_INVALID_REQUEST',
} as const;

/** The letter for a record, checked to carry its body and every original attribute intact. */
function letterOf(dlq: Dlq, letters: readonly StoredLetter[], record: SQSRecord): StoredLetter {
  const letter = letters.find((l) => l.attributes['emq-source-message-id'] === record.messageId);
  if (letter === undefined) throw new Error(`no dead letter for ${record.messageId}`);
  expect(letter.queueUrl).toBe(dlq.url);
  expect(letter.body).toBe(record.body);
  for (const [name, attribute] of Object.entries(record.messageAttributes)) {
    expect(letter.attributes[name]).toEqual(
      attribute.stringValue ?? Buffer.from(attribute.binaryValue ?? '', 'base64'),
    );
  }
  return letter;
}

async function expectPermanentOnesDeadLettered(mixed: Mixed, dlq: Dlq) {
  const letters = await dlq.letters();
  expect(letters).toHaveLength(Object.keys(PERMANENT).length);
  for (const [name, code] of Object.entries(PERMANENT)) {
    const letter = letterOf(dlq, letters, mixed.records[name] as SQSRecord);
    expect(letter.attributes['emq-error-code']).toBe(code);
    expect(String(letter.attributes['emq-error-detail'])).not.toBe('');
  }
}

async function expectAdmittedRows(conn: Connection, mixed: Mixed) {
  const admitted = recordLines(lines).filter(
    (line) => line.disposition === 'admitted' && line.queue === mixed.queue,
  );
  const ids = admitted.map((line) => String(line.id));
  const jobs = await jobsOf(conn, mixed.queue);
  expect(jobs.rows).toEqual([...new Set([...ids, SEEDED_ID, SAME_ID])].sort());
  expect(jobs.pending).toEqual(jobs.rows);
  const binary = admitted.find((line) => line.messageId === mixed.records.binary?.messageId);
  expect((await readJob(conn, mixed.queue, String(binary?.id)))?.payload).toEqual(
    Buffer.from([0, 255, 10, 13]),
  );
  expect((await readJob(conn, mixed.queue, SEEDED_ID))?.payload).toEqual(Buffer.from('original'));
  expect(await conn.client.get(`emq:{${mixed.wrongType}}:pending`)).toBe('not a sorted set');
}

describe.each(['native', 'function'] as const)(
  'on a standalone server with the %s family',
  (family) => {
    it('dead-letters exactly the permanent failures and admits the rest', async () => {
      const conn = await connectTo(standalone, { family, maxPayloadBytes: MAX_PAYLOAD });
      const mixed = await mixedBatch(conn);
      const dlq = sqs().dlq();
      const response = await handleSqsBatch(sqsEvent(Object.values(mixed.records)), {
        admission: admissionOf(conn, { dlqUrl: dlq.url }),
        sqs: sqs().client,
      });
      expect(response).toEqual({ batchItemFailures: [] });
      await expectPermanentOnesDeadLettered(mixed, dlq);
      expect(sqs().requests).toHaveLength(1);
      await expectAdmittedRows(conn, mixed);
      expect(recordLines(lines).filter((line) => line.disposition === 'admitted')).toHaveLength(3);
    });

    it('retries the permanent failures instead when no DLQ is configured', async () => {
      const conn = await connectTo(standalone, { family, maxPayloadBytes: MAX_PAYLOAD });
      const mixed = await mixedBatch(conn);
      const response = await handleSqsBatch(sqsEvent(Object.values(mixed.records)), {
        admission: admissionOf(conn),
        sqs: sqs().client,
      });
      expect(response.batchItemFailures).toEqual(
        Object.keys(PERMANENT).map((name) => ({
          itemIdentifier: mixed.records[name]?.messageId,
        })),
      );
      expect(sqs().requests).toEqual([]);
      await expectAdmittedRows(conn, mixed);
    });

    it('retries the records whose dead letter SQS refused', async () => {
      const conn = await connectTo(standalone, { family, maxPayloadBytes: MAX_PAYLOAD });
      // SQS refuses the conflict's letter for a character it forbids in a body (a direct invoke
      // can send one): that one entry is in Failed[], the others are stored.
      const mixed = await mixedBatch(conn, randomQueue, 'another payload \uffff');
      const dlq = sqs().dlq();
      const response = await handleSqsBatch(sqsEvent(Object.values(mixed.records)), {
        admission: admissionOf(conn, { dlqUrl: dlq.url }),
        sqs: sqs().client,
      });
      expect(response.batchItemFailures).toEqual([
        { itemIdentifier: mixed.records.conflict?.messageId },
      ]);
      const letters = await dlq.letters();
      expect(letters).toHaveLength(Object.keys(PERMANENT).length - 1);
      expect(letters.map((letter) => letter.attributes['emq-source-message-id'])).not.toContain(
        mixed.records.conflict?.messageId,
      );
      expect(
        recordLines(lines).find((line) => line.messageId === mixed.records.conflict?.messageId),
      ).toMatchObject({
        disposition: 'undelivered',
        code: 'EMQ_CONFLICT',
        reason: 'dlq-send-failed',
        dlqError: 'InvalidMessageContents',
      });
    });
  },
);

describe('on a standalone server with the native family', () => {
  it('lists every record as a batch item failure when the fence changed after connect', async () => {
    const conn = await connectTo(standalone, { family: 'native' });
    const queue = randomQueue('fenced');
    const batch = Array.from({ length: 4 }, (_, i) => sqsRecord({ queue, body: `job ${i}` }));
    await conn.client.set(wireKey, 'another-wire');
    try {
      const dlq = sqs().dlq();
      const response = await handleSqsBatch(sqsEvent(batch), {
        admission: admissionOf(conn, { dlqUrl: dlq.url }),
        sqs: sqs().client,
      });
      expect(response.batchItemFailures).toEqual(
        batch.map((record) => ({ itemIdentifier: record.messageId })),
      );
      expect(recordLines(lines).map((line) => line.code)).toEqual(Array(4).fill('EMQWIRE'));
      expect(sqs().requests).toEqual([]);
      expect(await dlq.letters()).toEqual([]);
      expect(await jobsOf(conn, queue)).toEqual({ rows: [], pending: [] });
    } finally {
      await conn.client.set(wireKey, '1');
    }
  });
});

describe.each(['native', 'function'] as const)('on a cluster with the %s family', (family) => {
  it('gives every record of a mixed batch its outcome, the fenced node included', async () => {
    const conn = await connectTo(cluster, { family, maxPayloadBytes: MAX_PAYLOAD });
    // The node that owns {emq}:version's slot takes a plain SET of it: only that node's copy
    // changes, so only records whose queue lives there meet the fence.
    const primaries = await cluster.primaries();
    const ownsFence = (node: ServerHandle) =>
      conn.nodeOf(slotOf(wireKey)) === `${node.host}:${node.port}`;
    const owner = primaries.find(ownsFence);
    const other = primaries.find((node) => !ownsFence(node));
    if (owner === undefined || other === undefined) throw new Error('expected 3 primaries');
    const mixed = await mixedBatch(conn, (prefix) => queueOn(conn, other, prefix));
    const fencedQueue = queueOn(conn, owner, 'fenced');
    const fenced = sqsRecord({ queue: fencedQueue, body: 'on the fenced node' });
    const records = [...Object.values(mixed.records), fenced];
    await conn.client.set(wireKey, 'another-wire');
    try {
      const dlq = sqs().dlq();
      const response = await handleSqsBatch(sqsEvent(records), {
        admission: admissionOf(conn, { dlqUrl: dlq.url }),
        sqs: sqs().client,
      });
      await expectPermanentOnesDeadLettered(mixed, dlq);
      await expectAdmittedRows(conn, mixed);
      const onFenced = await jobsOf(conn, fencedQueue);
      // EMQ.ENQUEUE checks the node's fence on every write, and where the module is loaded
      // the function family writes through it: retry, nothing written, on both families.
      expect(family).toMatch(/^(native|function)$/);
      expect(response.batchItemFailures).toEqual([{ itemIdentifier: fenced.messageId }]);
      expect(recordLines(lines).at(-1)).toMatchObject({ disposition: 'retry', code: 'EMQWIRE' });
      expect(onFenced).toEqual({ rows: [], pending: [] });
    } finally {
      await conn.client.set(wireKey, '1');
    }
  });
});
