// Generated SQS batches against a real server: records with every emq-* attribute right,
// wrong or missing, bodies up to and past the cap, replays, FIFO groups and broken records.
// The face never throws; with a healthy server nothing comes back for a retry; a record goes
// to the DLQ only for a fault of its own input, with its body intact; and a batch that admits
// no new job leaves the dataset as it was.
import type { SQSRecord } from 'aws-lambda';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LogSink, setLogSink } from '../../functions/shared/log.js';
import { ERROR_CODE_ATTRIBUTE } from '../../functions/shared/sqs-attributes.js';
import { handleSqsBatch } from '../../functions/sqs/batch.js';
import { sqsEvent } from '../fixtures/sqs/records.js';
import { admissionOf, connectTo } from '../support/emq.js';
import { type ServerHandle, startStandalone } from '../support/servers.js';
import { useSqs } from '../support/sqs.js';
import { installWire } from './driver/topology.js';
import { type Dataset, datasetOf, fuzzSeed } from './fuzz/dataset.js';
import { FUZZ_CAP_BYTES, queuePool } from './fuzz/pools.js';
import { sqsBatchArb, sqsBatchWithBrokenRecordArb } from './fuzz/sqs-records.js';

/** Batches per family: about 5.5 records each, so over 2,000 records per family. */
const BATCHES_PER_EXECUTOR = 450;
/** Batches holding a broken record, per family. */
const BROKEN_BATCHES_PER_EXECUTOR = 100;
const RECORDS_PER_EXECUTOR = 2_000;
/** Batches between dataset resets, which keep DEBUG DIGEST cheap. */
const BATCHES_PER_RESET = 50;

/** The codes a record's own input can earn (SPEC §7): nothing the server refuses. */
const INPUT_CODES = [
  'EMQ_INVALID_QUEUE',
  'EMQ_INVALID_ID',
  'EMQ_INVALID_REQUEST',
  'EMQ_PAYLOAD_TOO_LARGE',
  'EMQ_CONFLICT',
  'EMQ_IDEMPOTENCY_MISMATCH',
];

let server: ServerHandle;
let dataset: Dataset;
const lines: Record<string, unknown>[] = [];
let previousSink: LogSink;
const sqs = useSqs();

beforeAll(async () => {
  server = await startStandalone({ module: true });
  await installWire(server);
  dataset = await datasetOf(server);
  previousSink = setLogSink((line) => {
    if (line.includes('"sqs record"')) lines.push(JSON.parse(line) as Record<string, unknown>);
  }, 'debug');
});

afterAll(async () => {
  setLogSink(previousSink);
  await server?.stop();
});

describe.each(['native', 'function'] as const)('with the %s family', (executor) => {
  it('never throws, retries nothing, dead-letters only bad input and writes only new jobs', async () => {
    const connection = await connectTo(server, { executor, maxPayloadBytes: FUZZ_CAP_BYTES });
    const queues = queuePool();
    const outcomes = new Map<string, number>();
    let batches = 0;
    let records = 0;
    let last = await dataset.digest();
    await fc.assert(
      fc.asyncProperty(sqsBatchArb(queues), async (batch: SQSRecord[]) => {
        batches += 1;
        records += batch.length;
        if (batches % BATCHES_PER_RESET === 0) {
          await dataset.reset();
          last = await dataset.digest();
        }
        lines.length = 0;
        const dlq = sqs().dlq();
        const response = await handleSqsBatch(sqsEvent(batch), {
          admission: admissionOf(connection, { defaultQueue: queues[0], dlqUrl: dlq.url }),
          sqs: sqs().client,
        });
        const letters = await dlq.letters();
        const now = await dataset.digest();
        const changed = now !== last;
        last = now;
        for (const line of lines) {
          const label = `${String(line.disposition)} ${String(line.outcome)}`;
          outcomes.set(label, (outcomes.get(label) ?? 0) + 1);
        }
        expect(response.batchItemFailures).toEqual([]);
        const codes = letters.map((letter) => letter.attributes[ERROR_CODE_ATTRIBUTE]);
        expect(codes.filter((code) => !INPUT_CODES.includes(String(code)))).toEqual([]);
        const bodies = new Set(batch.map((record) => record.body));
        expect(letters.filter((letter) => !bodies.has(letter.body))).toEqual([]);
        const enqueued = lines.filter((line) => line.outcome === 'enqueued').length;
        if (enqueued === 0) expect(changed).toBe(false);
      }),
      { numRuns: BATCHES_PER_EXECUTOR, ...fuzzSeed() },
    );
    console.info(
      `[fuzz] sqs (${executor}): ${records} records in ${batches} batches; ${[...outcomes]
        .sort()
        .map(([label, count]) => `${label}: ${count}`)
        .join(', ')}`,
    );
    expect(records).toBeGreaterThanOrEqual(RECORDS_PER_EXECUTOR);
    expect(outcomes.get('admitted enqueued') ?? 0).toBeGreaterThan(0);
  });

  it('never throws on a record broken beyond the event format, and handles the rest of its batch', async () => {
    const connection = await connectTo(server, { executor, maxPayloadBytes: FUZZ_CAP_BYTES });
    const queues = queuePool();
    await fc.assert(
      fc.asyncProperty(sqsBatchWithBrokenRecordArb(queues), async (batch: SQSRecord[]) => {
        const dlq = sqs().dlq();
        const response = await handleSqsBatch(sqsEvent(batch), {
          admission: admissionOf(connection, { defaultQueue: queues[0], dlqUrl: dlq.url }),
          sqs: sqs().client,
        });
        const broken = batch.at(-1)?.messageId;
        const retried = response.batchItemFailures.map((failure) => failure.itemIdentifier);
        expect(retried.filter((id) => id !== broken)).toEqual([]);
        const codes = (await dlq.letters()).map(
          (letter) => letter.attributes[ERROR_CODE_ATTRIBUTE],
        );
        expect(codes.filter((code) => !INPUT_CODES.includes(String(code)))).toEqual([]);
      }),
      { numRuns: BROKEN_BATCHES_PER_EXECUTOR, ...fuzzSeed() },
    );
  });
});
