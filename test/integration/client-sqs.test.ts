// The producer's SQS side against the emulator (fauxqs) and the real SQS function (its built
// bundle in a process of its own, fed as the event source mapping feeds it) on a real Valkey:
// an entry sent twice is two messages with two message ids and one job; bytes arrive as
// bytes; many entries go in batches of 10. Each test ends by counting the jobs in Valkey.
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJobs, sqsEntry } from '../../client/index.js';
import { type Connection, readJob } from '../../src/index.js';
import { connectTo, jobsOf, startFencedServer } from '../support/emq.js';
import { type RunningSqsFace, startSqsFace } from '../support/functions.js';
import { randomQueue, type ServerHandle } from '../support/servers.js';

let server: ServerHandle;
let face: RunningSqsFace;
let producer: SQSClient;
let reader: Connection;
/** Every SendMessageBatch the producer made, with its number of entries. */
const batches: number[] = [];

beforeAll(async () => {
  server = await startFencedServer();
  face = await startSqsFace(server);
  reader = await connectTo(server);
  producer = new SQSClient({
    endpoint: face.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  producer.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'SendMessageBatchCommand') {
        batches.push((args.input as { Entries: unknown[] }).Entries.length);
      }
      return next(args);
    },
    { step: 'initialize', name: 'countBatches' },
  );
}, 180_000);

afterAll(async () => {
  producer?.destroy();
  await face?.stop();
  await server?.stop();
});

/** Every message handled, and none refused (the DLQ is empty). */
async function drained(): Promise<void> {
  expect(await face.settled()).toBe(0);
}

describe('sqsEntry and sendJobs', () => {
  it('makes one job of an entry sent twice (two messages, two message ids)', async () => {
    const queue = randomQueue('client-sqs-twice');
    const entry = sqsEntry({ queue, payload: 'sent twice' });
    const first = await sendJobs(producer, face.url, [entry]);
    const second = await sendJobs(producer, face.url, [entry]);
    expect(first.failed).toEqual([]);
    expect(second.failed).toEqual([]);
    expect(first.successful[0]?.jobId).toBe(entry.Id);
    expect(second.successful[0]?.MessageId).not.toBe(first.successful[0]?.MessageId);
    await drained();
    expect(await jobsOf(reader, queue)).toEqual({ rows: [entry.Id], pending: [entry.Id] });
    expect((await readJob(reader, queue, entry.Id))?.payload.toString()).toBe('sent twice');
  });

  it('sends bytes as base64 and they are stored as the same bytes', async () => {
    const queue = randomQueue('client-sqs-bytes');
    const bytes = Uint8Array.from([0, 1, 254, 255, 10, 13]);
    const entry = sqsEntry({ queue, payload: bytes });
    expect((await sendJobs(producer, face.url, [entry])).failed).toEqual([]);
    await drained();
    expect((await readJob(reader, queue, entry.Id))?.payload).toEqual(Buffer.from(bytes));
    expect((await jobsOf(reader, queue)).rows).toEqual([entry.Id]);
  });

  it('sends 25 entries in batches of 10, 10 and 5: 25 jobs', async () => {
    const queue = randomQueue('client-sqs-many');
    const entries = Array.from({ length: 25 }, (_, index) =>
      sqsEntry({ queue, payload: `job ${index}` }),
    );
    batches.splice(0);
    const result = await sendJobs(producer, face.url, entries);
    expect(batches).toEqual([10, 10, 5]);
    expect(result.failed).toEqual([]);
    expect(result.successful.map((sent) => sent.jobId)).toEqual(entries.map((entry) => entry.Id));
    await drained();
    const ids = entries.map((entry) => entry.Id).sort();
    expect(await jobsOf(reader, queue)).toEqual({ rows: ids, pending: ids });
  });
});
