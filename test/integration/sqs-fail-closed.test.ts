// The SQS face fails closed, proven with the built bundle invoked directly (the only way to send
// it what SQS never delivers) on a real server and the SQS emulator: a failure always names its
// record, nothing is written for a record SQS could not have delivered, the handler never
// throws once it wrote, a letter the DLQ cannot take is retried, and a cause a retry cannot
// mend is one error line per batch (docs/reliability.md, "The SQS face").
import { randomBytes } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install } from '../../src/connection/fence.js';
import { readJob } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import { recordLines } from '../fixtures/sqs/logs.js';
import { sqsEvent, sqsRecord, stringAttribute } from '../fixtures/sqs/records.js';
import { digestOf } from '../support/digest.js';
import { connectTo, jobsOf } from '../support/emq.js';
import { invokeSqsBundle, type SqsInvocation } from '../support/functions.js';
import { randomQueue, type ServerHandle, startStandalone } from '../support/servers.js';
import { type Dlq, SQS_REGION, useSqs } from '../support/sqs.js';

let server: ServerHandle;
const sqs = useSqs();

beforeAll(async () => {
  server = await startStandalone({ module: true });
  await install(await connectTo(server, { checkFence: false }));
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

/** The bundle on `event`, its default queue `queue`, its DLQ `dlq` (or the URL given). */
function invoke(
  event: unknown,
  queue: string,
  dlq: Dlq | string,
  env: Readonly<Record<string, string>> = {},
): Promise<SqsInvocation> {
  return invokeSqsBundle(event, {
    AWS_LAMBDA_LOG_LEVEL: 'DEBUG',
    EMQ_URL: server.url,
    EMQ_DEFAULT_QUEUE: queue,
    EMQ_DLQ_URL: typeof dlq === 'string' ? dlq : dlq.url,
    AWS_REGION: SQS_REGION,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_SQS: sqs().endpoint,
    ...env,
  });
}

/** Every failure names a record of the batch, by its messageId. */
function failuresOf(invocation: SqsInvocation, batch: readonly unknown[]): string[] {
  expect(invocation.thrown).toBeUndefined();
  const failures = invocation.response?.batchItemFailures ?? [];
  const ids = batch.map((record) => (record as { messageId?: unknown }).messageId);
  for (const failure of failures) {
    expect(typeof failure.itemIdentifier).toBe('string');
    expect(failure.itemIdentifier).not.toBe('');
    expect(ids).toContain(failure.itemIdentifier);
  }
  return failures.map((failure) => failure.itemIdentifier);
}

/** A record as a direct invoke may send it: any field replaced, the fixture's digests kept. */
function withFields(record: SQSRecord, fields: Record<string, unknown>): SQSRecord {
  return { ...record, ...fields } as SQSRecord;
}

describe('the built SQS bundle, invoked with what SQS never delivers', () => {
  it('dead-letters records whose messageId is not a text before anything is written, and names every failure', async () => {
    const queue = randomQueue('fail-closed');
    const dlq = sqs().dlq();
    const callerId = mintId();
    const { messageId: _, ...without } = sqsRecord({ body: 'no id', jobId: callerId });
    const numbered = withFields(sqsRecord({ body: 'number id' }), { messageId: 42 });
    const good = sqsRecord({ body: 'good' });
    // A body SQS could not hold: its letter cannot be sent, so it must come back by its id.
    const unsendable = sqsRecord({ body: 'x', queue: 'bad queue' });
    const batch = [without, good, numbered, withFields(unsendable, { body: 'lone \ud800' })];
    const invocation = await invoke(sqsEvent(batch as SQSRecord[]), queue, dlq);

    expect(failuresOf(invocation, batch)).toEqual([unsendable.messageId]);
    const letters = await dlq.letters();
    expect(letters.map((letter) => letter.body).sort()).toEqual(['no id', 'number id']);
    for (const letter of letters) {
      expect(letter.attributes['emq-error-code']).toBe('EMQ_INVALID_REQUEST');
      expect(letter.attributes['emq-source-message-id']).toBeUndefined();
    }
    // The record without an id had a caller id: admitted, a retry could not have named it.
    const reader = await connectTo(server);
    expect(await readJob(reader, queue, callerId)).toBeNull();
    expect((await jobsOf(reader, queue)).rows).toHaveLength(1);
  });

  it('refuses the event whole, writing nothing, when the DLQ does not take a record without a messageId', async () => {
    const queue = randomQueue('fail-closed');
    // The emulator refuses what is over the queue's MaximumMessageSize.
    const dlq = sqs().dlq({ attributes: { MaximumMessageSize: '1024' } });
    const { messageId: _, ...without } = sqsRecord({ body: 'n'.repeat(2_000) });
    const before = await digestOf(server);
    const invocation = await invoke(
      sqsEvent([sqsRecord({ body: 'good' }), without as SQSRecord]),
      queue,
      dlq,
    );
    expect(invocation.response).toBeUndefined();
    expect(invocation.thrown).toMatchObject({ code: 'EMQ_INVALID_REQUEST' });
    expect(await digestOf(server)).toBe(before);
    expect(await dlq.letters()).toEqual([]);
    expect(invocation.logs.filter((line) => line.level === 'error')).toMatchObject([
      { message: 'sqs event refused', code: 'EMQ_INVALID_REQUEST' },
    ]);
  });

  it.each([
    ['no Records', {}],
    ['Records that are a text', { Records: 'records' }],
    ['a record that is null', { Records: [sqsRecord({ body: 'good' }), null] }],
  ])('refuses an event with %s by a throw, writing nothing', async (_, event) => {
    const dlq = sqs().dlq();
    const before = await digestOf(server);
    const invocation = await invoke(event, randomQueue('fail-closed'), dlq);
    expect(invocation.thrown).toMatchObject({ code: 'EMQ_INVALID_REQUEST' });
    expect(await digestOf(server)).toBe(before);
    expect(await dlq.letters()).toEqual([]);
  });

  it('writes nothing for a record with a lone surrogate in its body or an emq-* attribute', async () => {
    const queue = randomQueue('fail-closed');
    const dlq = sqs().dlq();
    const body = withFields(sqsRecord({ body: 'x' }), { body: 'a\ud800' });
    const high = withFields(sqsRecord({ body: 'x' }), { body: 'b\udbff' });
    const id = sqsRecord({ body: 'id' });
    const jobId = withFields(id, {
      messageAttributes: { 'emq-job-id': stringAttribute(`${mintId().slice(0, -1)}\udc00`) },
    });
    const queued = sqsRecord({ body: 'queue' });
    const inQueue = withFields(queued, {
      messageAttributes: { 'emq-queue': stringAttribute(`${queue}\ud800`) },
    });
    const batch = [body, high, jobId, inQueue];
    const before = await digestOf(server);
    const invocation = await invoke(sqsEvent(batch), queue, dlq);
    expect(await digestOf(server)).toBe(before);
    // Each is its own fault; SQS could not hold its letter either, so each comes back, by its id.
    expect(failuresOf(invocation, batch)).toEqual(batch.map((record) => record.messageId));
    expect(recordLines(invocation.logs).map((line) => [line.code, line.disposition])).toEqual(
      batch.map(() => ['EMQ_INVALID_REQUEST', 'undelivered']),
    );
    expect(await dlq.letters()).toEqual([]);
  });

  it('never throws after it wrote: letters the DLQ cannot take come back, the others are handled', async () => {
    const queue = randomQueue('fail-closed');
    const dlq = sqs().dlq({ attributes: { MaximumMessageSize: '1024' } });
    const good = sqsRecord({ body: 'good' });
    const lettered = sqsRecord({ body: 'to the DLQ', queue: 'bad queue' });
    const large = sqsRecord({ body: 'l'.repeat(2_000), queue: 'bad queue' });
    // An attribute whose data type is not a text: the letter could not describe it.
    const odd = sqsRecord({ body: 'odd', queue: 'bad queue' });
    const oddType = withFields(odd, {
      messageAttributes: {
        ...odd.messageAttributes,
        trace: { ...stringAttribute('t'), dataType: 5 },
      },
    });
    const malformed = withFields(sqsRecord({ body: 'wrong count' }), {
      attributes: { ApproximateReceiveCount: 1, SentTimestamp: String(Date.now()) },
    });
    const batch = [good, lettered, large, oddType, malformed];
    const invocation = await invoke(sqsEvent(batch), queue, dlq);

    expect(failuresOf(invocation, batch).sort()).toEqual(
      [large.messageId, oddType.messageId].sort(),
    );
    const letters = await dlq.letters();
    expect(letters.map((letter) => letter.body).sort()).toEqual(['to the DLQ', 'wrong count']);
    expect(letters.find((letter) => letter.body === 'wrong count')?.attributes).toMatchObject({
      'emq-error-code': 'EMQ_INVALID_REQUEST',
      'emq-source-message-id': malformed.messageId,
    });
    const reader = await connectTo(server);
    expect((await jobsOf(reader, queue)).rows).toHaveLength(1);
    expect(
      recordLines(invocation.logs).map((line) => [line.messageId, line.disposition, line.code]),
    ).toEqual([
      [good.messageId, 'admitted', undefined],
      [lettered.messageId, 'dead-lettered', 'EMQ_INVALID_QUEUE'],
      [large.messageId, 'undelivered', 'EMQ_INVALID_QUEUE'],
      [oddType.messageId, 'undelivered', 'EMQ_INVALID_REQUEST'],
      [malformed.messageId, 'dead-lettered', 'EMQ_INVALID_REQUEST'],
    ]);
  });

  it('retries every record the server refuses for one cause, and says it once, at error', async () => {
    const admin = await server.client();
    const user = `emq-noperm-${randomBytes(4).toString('hex')}`;
    // May read the wire identity and connect, not touch any queue's keys.
    await admin.call('ACL', 'SETUSER', user, 'on', '>a-password', '+@all', '~{emq}:*', '&*');
    admin.disconnect();
    const queue = randomQueue('fail-closed');
    const dlq = sqs().dlq();
    const batch = Array.from({ length: 4 }, (_, i) => sqsRecord({ body: `r${i}` }));
    const before = await digestOf(server);
    const invocation = await invoke(sqsEvent(batch), queue, dlq, {
      EMQ_USERNAME: user,
      EMQ_PASSWORD: 'a-password',
    });
    expect(await digestOf(server)).toBe(before);
    expect(failuresOf(invocation, batch)).toEqual(batch.map((record) => record.messageId));
    expect(await dlq.letters()).toEqual([]);
    const errors = invocation.logs.filter((line) => line.level === 'error');
    expect(errors).toMatchObject([
      { message: 'sqs batch', code: 'EMQ_CONFIG', cause: 'NOPERM', batchItemFailures: 4 },
    ]);
    expect(recordLines(invocation.logs).map((line) => [line.level, line.code])).toEqual(
      batch.map(() => ['warn', 'EMQ_CONFIG']),
    );
  });
});
