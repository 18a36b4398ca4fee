import type {
  SendMessageBatchCommand,
  SendMessageBatchCommandOutput,
  SendMessageBatchRequestEntry,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { chunksOf, type DlqSender, sendDeadLetters } from '../../functions/sqs/dlq.js';
import { InvalidInputError } from '../../src/index.js';
import { sqsRecord, stringAttribute } from '../fixtures/sqs/records.js';

const URL = 'https://sqs.us-east-2.amazonaws.com/123456789012/emq-dead';
const invalid = new InvalidInputError('EMQ_INVALID_QUEUE', 'Invalid queue name');

/** An SQS client faked at the SDK boundary: it records each request and answers per entry. */
function fakeSqs(
  answer: (entry: SendMessageBatchRequestEntry) => 'ok' | 'refuse' | 'omit' = () => 'ok',
) {
  const requests: SendMessageBatchCommand['input'][] = [];
  const sender: DlqSender = {
    async send(command) {
      requests.push(command.input);
      const entries = command.input.Entries ?? [];
      const output: SendMessageBatchCommandOutput = {
        $metadata: { httpStatusCode: 200 },
        Successful: entries
          .filter((entry) => answer(entry) === 'ok')
          .map((entry) => ({ Id: entry.Id, MessageId: `dlq-${entry.Id}`, MD5OfMessageBody: '' })),
        Failed: entries
          .filter((entry) => answer(entry) === 'refuse')
          .map((entry) => ({ Id: entry.Id, SenderFault: true, Code: 'InvalidParameterValue' })),
      };
      return output;
    },
  };
  return { sender, requests };
}

function letters(count: number, body = 'x') {
  return Array.from({ length: count }, (_, index) => ({
    index,
    record: sqsRecord({ body, queue: 'bad queue' }),
    error: invalid,
  }));
}

describe('sendDeadLetters', () => {
  it('sends 23 letters in batches of at most 10, every one delivered', async () => {
    const { sender, requests } = fakeSqs();
    const results = await sendDeadLetters(sender, letters(23), { url: URL });
    expect(requests.map((request) => request.Entries?.length)).toEqual([10, 10, 3]);
    expect(results.every((result) => result.delivered)).toBe(true);
    expect(results.map((result) => result.index)).toEqual([...Array(23).keys()]);
  });

  it('sends the original body and attributes with the reason to the DLQ URL', async () => {
    const { sender, requests } = fakeSqs();
    const [letter] = letters(1, '{"a":1}');
    if (letter === undefined) throw new Error('no letter');
    await sendDeadLetters(sender, [letter], { url: URL });
    expect(requests).toEqual([
      {
        QueueUrl: URL,
        Entries: [
          {
            Id: 'r0',
            MessageBody: '{"a":1}',
            MessageAttributes: {
              'emq-queue': { DataType: 'String', StringValue: 'bad queue' },
              'emq-error-code': { DataType: 'String', StringValue: 'EMQ_INVALID_QUEUE' },
              'emq-error-detail': { DataType: 'String', StringValue: 'Invalid queue name' },
              'emq-source-message-id': { DataType: 'String', StringValue: letter.record.messageId },
            },
          },
        ],
      },
    ]);
  });

  it('splits batches to stay under the byte limit', async () => {
    const { sender, requests } = fakeSqs();
    await sendDeadLetters(sender, letters(4, 'y'.repeat(1000)), { url: URL, maxBytes: 2500 });
    expect(requests.map((request) => request.Entries?.length)).toEqual([2, 2]);
  });

  it('reports refused and unconfirmed letters as not delivered', async () => {
    const { sender } = fakeSqs((entry) =>
      entry.Id === 'r1' ? 'refuse' : entry.Id === 'r2' ? 'omit' : 'ok',
    );
    const results = await sendDeadLetters(sender, letters(3), { url: URL });
    expect(results.map(({ delivered, failure }) => [delivered, failure])).toEqual([
      [true, undefined],
      [false, 'InvalidParameterValue'],
      [false, 'NotConfirmed'],
    ]);
  });

  it('reports every letter of a batch whose send throws as not delivered', async () => {
    const error = Object.assign(new Error('no such queue'), { name: 'QueueDoesNotExist' });
    const sender: DlqSender = { send: () => Promise.reject(error) };
    const results = await sendDeadLetters(sender, letters(2), { url: URL });
    expect(results.map(({ delivered, failure }) => [delivered, failure])).toEqual([
      [false, 'QueueDoesNotExist'],
      [false, 'QueueDoesNotExist'],
    ]);
  });

  it('gives letters to a FIFO DLQ their message group and a deduplication id', async () => {
    const { sender, requests } = fakeSqs();
    const record = sqsRecord({ groupId: 'order-7', attributes: { k: stringAttribute('v') } });
    await sendDeadLetters(sender, [{ index: 0, record, error: invalid }], { url: `${URL}.fifo` });
    expect(requests[0]?.Entries?.[0]).toMatchObject({
      MessageGroupId: 'order-7',
      MessageDeduplicationId: record.messageId,
    });
  });
});

describe('chunksOf', () => {
  it('sends an item larger than the byte limit alone', () => {
    const items = [{ bytes: 10 }, { bytes: 500 }, { bytes: 10 }];
    expect(chunksOf(items, 10, 100)).toEqual([[{ bytes: 10 }], [{ bytes: 500 }], [{ bytes: 10 }]]);
  });
});
