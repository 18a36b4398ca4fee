// Generated SQS batches against a real server: records with every emq-* attribute right,
// wrong or missing, bodies up to and past the cap, replays, FIFO groups and broken records.
// The face never throws; with a healthy server nothing comes back for a retry; a record goes
// to the DLQ only for a fault of its own input, with its body intact; a batch that admits
// no new job leaves the dataset as it was, and one that does writes only under the admitted
// queues' keys; no log line passes the bound. Records a direct invoke can send (a body that
// is not a string, malformed attributes, no messageId, 1 MiB values) never make the face throw
// after it wrote, and every failure it reports names a record of the batch.
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
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
import { type Dataset, datasetOf, fuzzParameters } from './fuzz/dataset.js';
import {
  keyFaults,
  LOG_LINE_BOUND_BYTES,
  shortText,
  tally,
  Violations,
  watchLogs,
} from './fuzz/invariants.js';
import { FUZZ_CAP_BYTES, queuePool } from './fuzz/pools.js';
import {
  type HostileBatch,
  sqsBatchArb,
  sqsBatchWithBrokenRecordArb,
  sqsHostileBatchArb,
} from './fuzz/sqs-records.js';

/** Batches per family: about 5.5 records each, so over 2,000 records per family. */
const BATCHES_PER_FAMILY = 450;
/** Batches holding a broken record, per family. */
const BROKEN_BATCHES_PER_FAMILY = 100;
const RECORDS_PER_FAMILY = 2_000;
/** Batches between dataset resets, which keep DEBUG DIGEST cheap. */
const BATCHES_PER_RESET = 50;
/** Batches between checks of the keys written (each check scans the dataset). */
const BATCHES_PER_KEY_CHECK = 10;
/** Batches holding hostile records, per family. */
const HOSTILE_BATCHES_PER_FAMILY = 80;

// The invariants every answer keeps, whatever the records (docs/security.md).
const LOG_BOUND = `no log line over ${LOG_LINE_BOUND_BYTES} bytes`;
const OWN_KEYS = 'every key written lies under emq:{<an admitted queue>}:';
const NAMED = 'every batchItemFailures entry has a string itemIdentifier naming a record';
const NO_THROW_AFTER_WRITE = 'the face never throws after it wrote';
const REFUSAL_WRITES_NOTHING = 'a batch that admits no new job writes nothing';

/**
 * The codes a record's own input can earn (docs/reliability.md, "Outcomes"): nothing the server
 * refuses.
 */
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
const logs = watchLogs((line) => {
  if (line.includes('"sqs record"')) lines.push(JSON.parse(line) as Record<string, unknown>);
});
const sqs = useSqs();

beforeAll(async () => {
  server = await startStandalone({ module: true });
  await installWire(server);
  dataset = await datasetOf(server);
  previousSink = setLogSink(logs.sink, 'debug');
});

afterAll(async () => {
  setLogSink(previousSink);
  await server?.stop();
});

describe.each(['native', 'function'] as const)('with the %s family', (family) => {
  it('never throws, retries nothing, dead-letters only bad input and writes only new jobs', async () => {
    const connection = await connectTo(server, { family, maxPayloadBytes: FUZZ_CAP_BYTES });
    const queues = queuePool();
    const outcomes = new Map<string, number>();
    let batches = 0;
    let records = 0;
    const violations = new Violations();
    const parameters = fuzzParameters<[SQSRecord[]]>(BATCHES_PER_FAMILY);
    // The keys written since the last check, against the queues admitted to since: a check
    // scans the dataset, so it runs every few batches, not after each.
    const admittedSince = new Set<string>();
    const checkKeys = async (input: unknown) => {
      violations.note(OWN_KEYS, keyFaults(await dataset.written(), [...admittedSince]), input);
      admittedSince.clear();
    };
    let last = await dataset.digest();
    await dataset.written();
    logs.take();
    await fc.assert(
      fc.asyncProperty(sqsBatchArb(queues), async (batch: SQSRecord[]) => {
        batches += 1;
        records += batch.length;
        if (batches % BATCHES_PER_RESET === 0) {
          await checkKeys(batch);
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
        violations.note(LOG_BOUND, logs.take(), batch);
        for (const queue of admittedQueues()) admittedSince.add(queue);
        if (batches % BATCHES_PER_KEY_CHECK === 0) await checkKeys(batch);
      }),
      parameters,
    );
    await checkKeys('the last batches');
    console.info(
      `[fuzz] sqs (${family}, seed ${parameters.seed}): ${records} records in ${batches} batches; ${tally(outcomes)}`,
    );
    expect(records).toBeGreaterThanOrEqual(RECORDS_PER_FAMILY);
    expect(outcomes.get('admitted enqueued') ?? 0).toBeGreaterThan(0);
    expect(violations.summary(), `replay with EMQ_FUZZ_SEED=${parameters.seed}`).toEqual({});
  });

  it('never throws on a record broken beyond the event format, and handles the rest of its batch', async () => {
    const connection = await connectTo(server, { family, maxPayloadBytes: FUZZ_CAP_BYTES });
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
      fuzzParameters(BROKEN_BATCHES_PER_FAMILY),
    );
  });

  it('never throws after a write on hostile records, and names a record in every failure', async () => {
    const connection = await connectTo(server, { family, maxPayloadBytes: FUZZ_CAP_BYTES });
    const queues = queuePool();
    const violations = new Violations();
    const breakages = new Map<string, number>();
    const parameters = fuzzParameters<[HostileBatch]>(HOSTILE_BATCHES_PER_FAMILY);
    await dataset.written();
    logs.take();
    await fc.assert(
      fc.asyncProperty(sqsHostileBatchArb(queues), async ({ labels, records, hostile }) => {
        for (const label of labels) breakages.set(label, (breakages.get(label) ?? 0) + 1);
        // The hostile records first: a report cuts the rest.
        const shown = {
          breakages: labels,
          hostile: records.filter((_, at) => hostile.has(at)).map(describeRecord),
          wellFormed: records.length - hostile.size,
        };
        // Read per batch: the dataset is not reset here, and a failure may have written.
        const before = await dataset.digest();
        lines.length = 0;
        const dlq = sqs().dlq();
        let response: SQSBatchResponse | undefined;
        let thrown: unknown;
        try {
          response = await handleSqsBatch(sqsEvent(records as SQSRecord[]), {
            admission: admissionOf(connection, { defaultQueue: queues[0], dlqUrl: dlq.url }),
            sqs: sqs().client,
          });
        } catch (error) {
          thrown = error;
        }
        const changed = (await dataset.digest()) !== before;
        const enqueued = lines.some((line) => line.outcome === 'enqueued');
        violations.note(
          NO_THROW_AFTER_WRITE,
          thrown !== undefined && changed ? [shortText(String(thrown), 300)] : [],
          shown,
        );
        violations.note(LOG_BOUND, logs.take(), shown);
        const written = changed ? await dataset.written() : [];
        // A throw leaves no record lines (they are written at the end): checked above alone.
        if (response === undefined) return;
        violations.note(REFUSAL_WRITES_NOTHING, changed && !enqueued ? ['changed'] : [], shown);
        violations.note(OWN_KEYS, keyFaults(written, admittedQueues()), shown);
        const ids = new Set(records.map((record) => record.messageId));
        const failures: unknown[] = response.batchItemFailures ?? [];
        violations.note(
          NAMED,
          failures.filter((failure) => {
            const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
            return typeof id !== 'string' || !ids.has(id);
          }),
          shown,
        );
        const codes = (await dlq.letters()).map(
          (letter) => letter.attributes[ERROR_CODE_ATTRIBUTE],
        );
        expect(codes.filter((code) => !INPUT_CODES.includes(String(code)))).toEqual([]);
      }),
      parameters,
    );
    console.info(`[fuzz] sqs hostile (${family}, seed ${parameters.seed}): ${tally(breakages)}`);
    expect(breakages.size).toBeGreaterThanOrEqual(15);
    expect(violations.summary(), `replay with EMQ_FUZZ_SEED=${parameters.seed}`).toEqual({});
  });
});

/** The queues the last batch admitted a job to, from its records' log lines. */
function admittedQueues(): string[] {
  return lines.flatMap((line) =>
    line.disposition === 'admitted' && typeof line.queue === 'string' ? [line.queue] : [],
  );
}

/** A record as a report shows it: the fields the face reads (values cut by shortText). */
function describeRecord(record: SQSRecord): unknown {
  const { messageId, body, attributes, messageAttributes } = record as unknown as Record<
    string,
    unknown
  >;
  return { messageId, body, attributes, messageAttributes };
}
