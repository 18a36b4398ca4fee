// What sendDeadLetters makes of SQS's answers is tested on the emulator
// (test/integration/sqs-dlq.test.ts); here, only what needs no SQS: the chunking, and the one
// answer the emulator cannot give.
import { randomUUID } from 'node:crypto';
import type { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { chunksOf, type DlqSender, sendDeadLetters } from '../../functions/sqs/dlq.js';
import { InvalidInputError } from '../../src/index.js';
import { sqsRecord } from '../fixtures/sqs/records.js';
import { unconfirmingSqs } from '../fixtures/sqs/unconfirming-sqs.js';

describe('sendDeadLetters', () => {
  it('reports a letter SQS neither confirmed nor refused as not delivered', async () => {
    const error = new InvalidInputError('EMQ_INVALID_QUEUE', 'Invalid queue name');
    const letters = [0, 1].map((index) => ({
      index,
      record: sqsRecord({ body: 'x', queue: 'bad queue' }),
      error,
    }));
    const results = await sendDeadLetters(unconfirmingSqs(['r1']), letters, {
      url: 'https://sqs.us-east-2.amazonaws.com/123456789012/emq-dead',
    });
    expect(results.map(({ delivered, failure }) => [delivered, failure])).toEqual([
      [true, undefined],
      [false, 'NotConfirmed'],
    ]);
  });
});

describe('a FIFO letter', () => {
  it('is deduplicated by the messageId SQS gave, or by a hash where SQS would refuse the id', async () => {
    const sent: SendMessageBatchCommand['input'][] = [];
    const sender: DlqSender = {
      async send(command) {
        sent.push(command.input);
        return { $metadata: {}, Successful: [], Failed: [] };
      },
    };
    const error = new InvalidInputError('EMQ_INVALID_QUEUE', 'Invalid queue name');
    const ids = [randomUUID(), 'with space', 'é', 'x'.repeat(200), ''];
    const letters = ids.map((messageId, index) => ({
      index,
      record: { ...sqsRecord({ body: 'x', groupId: 'g' }), messageId },
      error,
    }));
    await sendDeadLetters(sender, letters, {
      url: 'https://sqs.us-east-2.amazonaws.com/123456789012/emq-dead.fifo',
    });
    const deduplication = sent
      .flatMap((input) => input.Entries ?? [])
      .map((entry) => entry.MessageDeduplicationId);
    expect(deduplication[0]).toBe(ids[0]);
    for (const id of deduplication.slice(1)) expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(deduplication).size).toBe(ids.length);
  });
});

describe('chunksOf', () => {
  it('sends an item larger than the byte limit alone', () => {
    const items = [{ bytes: 10 }, { bytes: 500 }, { bytes: 10 }];
    expect(chunksOf(items, 10, 100)).toEqual([[{ bytes: 10 }], [{ bytes: 500 }], [{ bytes: 10 }]]);
  });

  it('groups items in order within both limits', () => {
    const items = Array.from({ length: 23 }, () => ({ bytes: 1 }));
    expect(chunksOf(items, 10, 100).map((chunk) => chunk.length)).toEqual([10, 10, 3]);
    const large = Array.from({ length: 4 }, () => ({ bytes: 1000 }));
    expect(chunksOf(large, 10, 2500).map((chunk) => chunk.length)).toEqual([2, 2]);
  });
});
