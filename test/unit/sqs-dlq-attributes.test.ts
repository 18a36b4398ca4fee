import { describe, expect, it } from 'vitest';
import {
  deadLetterAttributes as attributesOrUncopyable,
  type DeadLetterAttributes,
} from '../../functions/sqs/dlq-attributes.js';
import { binaryAttribute, stringAttribute } from '../fixtures/sqs/records.js';

/** The attributes of a letter that can be made. */
function deadLetterAttributes(...args: Parameters<typeof attributesOrUncopyable>) {
  const made: DeadLetterAttributes = attributesOrUncopyable(...args);
  if (made.uncopyable !== undefined) throw new Error(`uncopyable: ${made.uncopyable}`);
  return made;
}

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

  it.each([
    ['a list value', { dataType: 'String', stringListValues: ['a'], binaryListValues: [] }],
    ['no value', { dataType: 'String' }],
    ['a data type that is not one', { ...stringAttribute('x'), dataType: 5 }],
    ['an unknown data type', { ...stringAttribute('x'), dataType: 'Text' }],
    ['a lone surrogate', stringAttribute('a\ud800')],
    ['binary that is not base64', { ...binaryAttribute(Buffer.from('x')), binaryValue: 'ab$=' }],
    ['two values', { ...stringAttribute('x'), binaryValue: 'eA==' }],
    ['null', null],
  ])('makes no letter from an attribute with %s: it could not be copied intact', (_, value) => {
    expect(
      attributesOrUncopyable({ 'emq-queue': stringAttribute('q'), odd: value }, reason),
    ).toEqual({ uncopyable: 'odd' });
  });

  it('makes no letter from attributes that are not an object', () => {
    expect(attributesOrUncopyable('emq-queue', reason)).toEqual({
      uncopyable: 'messageAttributes',
    });
  });

  it.each([
    ['none', undefined],
    ['an empty one', ''],
    ['one of 257 characters', 'm'.repeat(257)],
    ['one with a lone surrogate', 'm\ud800'],
  ])('names no source message for a record with %s as its messageId', (_, sourceMessageId) => {
    const { attributes } = deadLetterAttributes({}, { ...reason, sourceMessageId });
    expect(Object.keys(attributes)).toEqual(['emq-error-code', 'emq-error-detail']);
  });

  it('bounds the note of attributes left out, whatever their number and length', () => {
    const original = Object.fromEntries(
      Array.from({ length: 500 }, (_, i) => [`${'n'.repeat(10_000)}${i}`, stringAttribute('v')]),
    );
    const { attributes, dropped } = deadLetterAttributes(original, reason);
    expect(dropped).toHaveLength(493);
    const detail = attributes['emq-error-detail']?.StringValue ?? '';
    expect(detail.length).toBeLessThan(500);
    expect(detail).toContain('and 490 more');
  });
});
