import { describe, expect, it } from 'vitest';
import { deadLetterAttributes } from '../../functions/sqs/dlq-attributes.js';
import { binaryAttribute, stringAttribute } from '../fixtures/sqs/records.js';

const reason = { code: 'EMQ_INVALID_QUEUE', detail: 'Invalid queue name', sourceMessageId: 'm-1' };

describe('deadLetterAttributes', () => {
  it('keeps the original attributes and adds the reason', () => {
    const { attributes, dropped } = deadLetterAttributes(
      { 'emq-queue': stringAttribute('bad queue'), trace: binaryAttribute(Buffer.from([1, 2])) },
      reason,
    );
    expect(dropped).toEqual([]);
    expect(attributes).toEqual({
      'emq-queue': { DataType: 'String', StringValue: 'bad queue' },
      trace: { DataType: 'Binary', BinaryValue: Buffer.from([1, 2]) },
      'emq-error-code': { DataType: 'String', StringValue: 'EMQ_INVALID_QUEUE' },
      'emq-error-detail': { DataType: 'String', StringValue: 'Invalid queue name' },
      'emq-source-message-id': { DataType: 'String', StringValue: 'm-1' },
    });
  });

  it('replaces the reason a replayed dead letter still carries', () => {
    const { attributes } = deadLetterAttributes(
      { 'emq-error-code': stringAttribute('EMQ_CONFLICT'), other: stringAttribute('x') },
      reason,
    );
    expect(Object.keys(attributes)).toHaveLength(4);
    expect(attributes['emq-error-code']?.StringValue).toBe('EMQ_INVALID_QUEUE');
  });

  it('fits the 10-attribute limit, keeping emq-* first and naming what it left out', () => {
    const original = Object.fromEntries(
      Array.from({ length: 9 }, (_, i) => [`a${i}`, stringAttribute(String(i))]),
    );
    original['emq-job-id'] = stringAttribute('JOB0KHTOWnGLuC');
    const { attributes, dropped } = deadLetterAttributes(original, reason);
    expect(Object.keys(attributes)).toHaveLength(10);
    expect(attributes['emq-job-id']?.StringValue).toBe('JOB0KHTOWnGLuC');
    expect(dropped).toEqual(['a6', 'a7', 'a8']);
    expect(attributes['emq-error-detail']?.StringValue).toBe(
      'Invalid queue name (original message attributes left out to fit the SQS limit of 10: a6, a7, a8)',
    );
  });

  it('leaves out an attribute with no value SQS accepts', () => {
    const { attributes, dropped } = deadLetterAttributes(
      { lists: { dataType: 'String', stringListValues: ['a'], binaryListValues: [] } },
      reason,
    );
    expect(dropped).toEqual(['lists']);
    expect(attributes.lists).toBeUndefined();
  });
});
