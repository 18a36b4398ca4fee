// Dead letters through the real SQSClient to a local SQS JSON endpoint: the request on the
// wire (target, content type, signature, body). The SQS emulator (fauxqs) exposes neither the
// raw request nor checks signatures, so this one test, and nothing else, keeps its recording
// endpoint (test/fixtures/sqs/sqs-endpoint.ts); what SQS stores and answers (Failed entries,
// failed calls, FIFO letters) is tested on the emulator in sqs-dlq.test.ts.
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendDeadLetters } from '../../functions/sqs/dlq.js';
import { InvalidInputError } from '../../src/index.js';
import { binaryAttribute, sqsRecord } from '../fixtures/sqs/records.js';
import { type SqsEndpoint, startSqsEndpoint } from '../fixtures/sqs/sqs-endpoint.js';

let endpoint: SqsEndpoint;
let client: SQSClient;

beforeAll(async () => {
  endpoint = await startSqsEndpoint();
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
});
