import { readFileSync } from 'node:fs';
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { isFifoSqsRecord, orderingGroup, wavesOf } from '../../functions/sqs/waves.js';
import { sqsRecord } from '../fixtures/sqs/records.js';

const fifo: SQSEvent = JSON.parse(
  readFileSync(new URL('../fixtures/sqs/fifo-event.json', import.meta.url), 'utf8'),
);

describe('waves', () => {
  it('puts a whole standard batch in one wave', () => {
    expect(wavesOf([undefined, undefined, undefined])).toEqual([[0, 1, 2]]);
  });

  it('gives the n-th record of every message group the n-th wave', () => {
    expect(wavesOf(['a', 'a', 'b', 'a', 'b', 'c'])).toEqual([[0, 2, 5], [1, 4], [3]]);
  });

  it('orders FIFO records by message group and standard records by nothing', () => {
    const [first] = fifo.Records;
    if (first === undefined) throw new Error('fixture has no record');
    expect(isFifoSqsRecord(first)).toBe(true);
    expect(orderingGroup(first)).toBe('order-1001');
    expect(orderingGroup(sqsRecord())).toBeUndefined();
    expect(wavesOf(fifo.Records.map(orderingGroup))).toEqual([[0], [1]]);
  });
});
