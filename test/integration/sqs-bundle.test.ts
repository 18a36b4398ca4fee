import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install } from '../../src/connection/fence.js';
import { readJob } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import { sqsEvent, sqsRecord } from '../fixtures/sqs/records.js';
import { freshBundle } from '../support/bundles.js';
import { connectTo, jobsOf } from '../support/emq.js';
import { invokeSqsBundle } from '../support/functions.js';
import { randomQueue, type ServerHandle, startStandalone } from '../support/servers.js';
import { type Dlq, SQS_REGION, useSqs } from '../support/sqs.js';

const SOURCES = ['src', 'functions/sqs', 'functions/shared'];

/**
 * The DLQ's URL as a deployment gives it: the SDK must send to AWS_ENDPOINT_URL_SQS (the
 * emulator, which finds the queue by region and name), not to the URL's AWS host.
 */
function deployedUrl(dlq: Dlq): string {
  const name = dlq.url.split('/').at(-1) ?? '';
  return `https://sqs.${SQS_REGION}.amazonaws.com/123456789012/${name}`;
}

let server: ServerHandle;
const sqs = useSqs();

beforeAll(async () => {
  // `npm test` builds first; rebuild only a bundle older than its sources.
  await freshBundle('functions/sqs', SOURCES);
  server = await startStandalone({ module: true });
  await install(await connectTo(server, { checkFence: false }));
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

async function handleWithBundle(event: SQSEvent, defaultQueue: string, dlq: Dlq) {
  const { response, logs } = await invokeSqsBundle(event, {
    AWS_LAMBDA_LOG_LEVEL: 'DEBUG',
    EMQ_URL: server.url,
    EMQ_DEFAULT_QUEUE: defaultQueue,
    EMQ_DLQ_URL: deployedUrl(dlq),
    AWS_REGION: SQS_REGION,
    AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'not-a-secret',
    AWS_ENDPOINT_URL_SQS: sqs().endpoint,
  });
  return { response, logs };
}

describe('the built SQS bundle', () => {
  it('handles a batch end to end: rows written, the bad record dead-lettered', async () => {
    const queue = randomQueue('sqs-bundle');
    const other = randomQueue('sqs-bundle');
    // A fresh id: the function refuses caller ids older than EMQ_CALLER_ID_MAX_AGE_MS (a day).
    const callerId = mintId();
    const records = [
      sqsRecord({ body: 'to the default queue' }),
      sqsRecord({
        queue: other,
        body: Buffer.from([0, 1, 254]).toString('base64'),
        encoding: 'base64',
      }),
      sqsRecord({ queue: other, jobId: callerId, body: 'caller id' }),
      sqsRecord({ queue: 'bad queue', body: 'dead letter' }),
    ];
    const dlq = sqs().dlq();
    const { response, logs } = await handleWithBundle(sqsEvent(records), queue, dlq);

    expect(response).toEqual({ batchItemFailures: [] });
    const reader = await connectTo(server);
    expect((await jobsOf(reader, queue)).rows).toHaveLength(1);
    const jobs = await jobsOf(reader, other);
    expect(jobs.rows).toHaveLength(2);
    expect((await readJob(reader, other, callerId))?.payload.toString()).toBe('caller id');

    // What the DLQ holds: the bad record, once, with its reason (the emulator takes only the
    // SQS JSON protocol, so it came as the bundle's SDK sends it in Lambda).
    const letters = await dlq.letters();
    expect(letters.map((letter) => letter.body)).toEqual(['dead letter']);
    expect(letters[0]?.attributes).toMatchObject({
      'emq-queue': 'bad queue',
      'emq-error-code': 'EMQ_INVALID_QUEUE',
      'emq-source-message-id': records[3]?.messageId,
    });

    const outcomes = logs.filter((line) => line.message === 'sqs record').map((l) => l.disposition);
    expect(outcomes).toEqual(['admitted', 'admitted', 'admitted', 'dead-lettered']);
    expect(logs.filter((line) => line.Face === 'sqs' && line.Batches === 1)).toHaveLength(1);
    expect(JSON.stringify(logs)).not.toContain('dead letter');
  });
});
