// Dead letters through the real SQSClient to a local SQS JSON endpoint: the request on the
// wire (target, content type, signature, body) and how SQS's answers are read.
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendDeadLetters } from '../../functions/sqs/dlq.js';
import { ConflictError, InvalidInputError } from '../../src/index.js';
import { binaryAttribute, sqsRecord } from '../fixtures/sqs/records.js';
import { type SqsEndpoint, startSqsEndpoint } from '../fixtures/sqs/sqs-endpoint.js';

let endpoint: SqsEndpoint;
let client: SQSClient;

beforeAll(async () => {
  endpoint = await startSqsEndpoint((entry) => entry.MessageBody === 'refuse me');
  client = new SQSClient({
    region: 'us-east-2',
    endpoint: endpoint.url,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-secret' },
    maxAttempts: 1,
  });
});

afterAll(async () => {
  client?.destroy();
  await endpoint?.close();
});

describe('dead letters through the real SQSClient', () => {
  it('sends one signed SendMessageBatch in the SQS JSON protocol', async () => {
    const dlq = endpoint.queueUrl('emq-dead');
    const record = sqsRecord({
      queue: 'bad queue',
      body: '{"order":7}',
      attributes: { trace: binaryAttribute(Buffer.from([1, 2, 255])) },
    });
    const error = new InvalidInputError('EMQ_INVALID_QUEUE', 'Invalid queue name "bad queue"');
    const results = await sendDeadLetters(client, [{ index: 0, record, error }], { url: dlq });

    expect(results).toEqual([{ index: 0, delivered: true, failure: undefined, dropped: [] }]);
    const request = endpoint.requests.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.headers['x-amz-target']).toBe('AmazonSQS.SendMessageBatch');
    expect(request?.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(request?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-2\/sqs\/aws4_request, /,
    );
    expect(request?.body).toEqual({
      QueueUrl: dlq,
      Entries: [
        {
          Id: 'r0',
          MessageBody: '{"order":7}',
          MessageAttributes: {
            'emq-queue': { DataType: 'String', StringValue: 'bad queue' },
            trace: { DataType: 'Binary', BinaryValue: Buffer.from([1, 2, 255]).toString('base64') },
            'emq-error-code': { DataType: 'String', StringValue: 'EMQ_INVALID_QUEUE' },
            'emq-error-detail': {
              DataType: 'String',
              StringValue: 'Invalid queue name "bad queue"',
            },
            'emq-source-message-id': { DataType: 'String', StringValue: record.messageId },
          },
        },
      ],
    });
  });

  it('reads an entry in Failed as not delivered and the others as delivered', async () => {
    const error = new ConflictError('EMQ_CONFLICT', 'Job exists with another payload');
    const letters = ['keep me', 'refuse me'].map((body, index) => ({
      index,
      record: sqsRecord({ body }),
      error,
    }));
    const results = await sendDeadLetters(client, letters, { url: endpoint.queueUrl('emq-dead') });
    expect(results.map(({ delivered, failure }) => [delivered, failure])).toEqual([
      [true, undefined],
      [false, 'InvalidParameterValue'],
    ]);
  });

  it('sends a FIFO DLQ each letter with its group and the source messageId as dedupe id', async () => {
    const record = sqsRecord({ groupId: 'order-9', body: 'x' });
    const error = new InvalidInputError('EMQ_INVALID_REQUEST', 'bad');
    await sendDeadLetters(client, [{ index: 3, record, error }], {
      url: endpoint.queueUrl('emq-dead.fifo'),
    });
    expect(endpoint.requests.at(-1)?.body.Entries[0]).toMatchObject({
      Id: 'r3',
      MessageGroupId: 'order-9',
      MessageDeduplicationId: record.messageId,
    });
  });
});
