import { readFileSync } from 'node:fs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { requestOf } from '../../functions/sqs/record.js';
import { prepare } from '../../src/admission/admission.js';
import { type EnqueueRequest, InvalidInputError } from '../../src/index.js';
import { jobIdAt, mintId } from '../../src/keyspace/ids.js';
import { configure } from '../../src/settings/config.js';
import { binaryAttribute, sqsRecord, stringAttribute } from '../fixtures/sqs/records.js';

const standard: SQSEvent = JSON.parse(
  readFileSync(new URL('../fixtures/sqs/standard-event.json', import.meta.url), 'utf8'),
);

function request(value: EnqueueRequest | InvalidInputError): EnqueueRequest {
  if (value instanceof InvalidInputError) throw new Error(`refused: ${value.code}`);
  return value;
}

function refusal(value: EnqueueRequest | InvalidInputError): InvalidInputError {
  if (!(value instanceof InvalidInputError)) throw new Error('expected a refusal');
  return value;
}

describe('requestOf', () => {
  it('keys a text record by its messageId, in the sqs namespace', () => {
    const [record] = standard.Records;
    if (record === undefined) throw new Error('fixture has no record');
    expect(requestOf(record, 'default')).toEqual({
      queue: 'reports',
      payload: Buffer.from('{"report":"monthly","month":"2026-10"}'),
      id: undefined,
      idempotencyKey: '059f36b4-87a3-44ab-83d2-661975830a7d',
      origin: 'sqs',
      sentAtMs: Number(record.attributes.SentTimestamp),
    });
  });

  it('uses the caller id and decodes a base64 body, ignoring other attributes', () => {
    const record = standard.Records[1];
    if (record === undefined) throw new Error('fixture has no second record');
    expect(requestOf(record, 'default')).toMatchObject({
      queue: 'images',
      payload: Buffer.from([0, 1, 2, 3, 255]),
      id: 'JOB0KHTOWnGLuC',
      origin: 'sqs',
    });
  });

  it('takes the default queue when emq-queue is absent', () => {
    expect(request(requestOf(sqsRecord({ body: 'x' }), 'fallback')).queue).toBe('fallback');
  });

  it('keys a record by its messageId in the sqs namespace, first delivery or not', () => {
    const record = sqsRecord({ receiveCount: 3 });
    expect(request(requestOf(record, 'q'))).toMatchObject({
      idempotencyKey: record.messageId,
      origin: 'sqs',
    });
  });

  it('keeps every byte of a text body, empty included', () => {
    expect(request(requestOf(sqsRecord({ body: '' }), 'q')).payload).toEqual(Buffer.alloc(0));
    expect(request(requestOf(sqsRecord({ body: 'é\u0000✓' }), 'q')).payload).toEqual(
      Buffer.from('é\u0000✓', 'utf8'),
    );
  });

  it('refuses an encoding other than base64', () => {
    const refused = refusal(requestOf(sqsRecord({ body: 'x', encoding: 'gzip' }), 'q'));
    expect(refused.code).toBe('EMQ_INVALID_REQUEST');
    expect(refused.message).toContain('base64');
  });

  it('refuses a body that is not strict base64 when it claims to be', () => {
    for (const body of ['abc', 'ab$=', 'YQ', 'YQ===']) {
      expect(refusal(requestOf(sqsRecord({ body, encoding: 'base64' }), 'q')).code).toBe(
        'EMQ_INVALID_REQUEST',
      );
    }
  });

  it('accepts base64 wrapped over lines', () => {
    const bytes = Buffer.from('a'.repeat(100));
    const body = bytes.toString('base64').replace(/.{76}/g, '$&\r\n');
    expect(request(requestOf(sqsRecord({ body, encoding: 'base64' }), 'q')).payload).toEqual(bytes);
  });

  it('refuses an emq-* attribute that is not a String', () => {
    const record = sqsRecord({ attributes: { 'emq-queue': binaryAttribute(Buffer.from('q')) } });
    expect(refusal(requestOf(record, 'q')).code).toBe('EMQ_INVALID_REQUEST');
  });

  it('accepts a String attribute with a custom type suffix', () => {
    const record = sqsRecord({
      attributes: { 'emq-queue': { ...stringAttribute('billing'), dataType: 'String.queue' } },
    });
    expect(request(requestOf(record, 'q')).queue).toBe('billing');
  });

  it('leaves the queue and id checks to the core', () => {
    const built = request(requestOf(sqsRecord({ queue: 'bad queue', jobId: 'nope' }), 'q'));
    expect(built).toMatchObject({ queue: 'bad queue', id: 'nope' });
  });

  it('reads emq-* attribute names in any case', () => {
    const id = mintId();
    const record = sqsRecord({
      body: 'AP8=',
      attributes: {
        'EMQ-Queue': stringAttribute('billing'),
        'Emq-Job-Id': stringAttribute(id),
        'EMQ-ENCODING': stringAttribute('base64'),
      },
    });
    expect(requestOf(record, 'q')).toMatchObject({
      queue: 'billing',
      payload: Buffer.from([0x00, 0xff]),
      id,
    });
  });

  it.each([['emq-job_id'], ['emq-queues'], ['EMQ-Priority']])(
    'refuses the unknown emq-* attribute %s, naming it and the known ones',
    (name) => {
      const record = sqsRecord({ body: 'x', attributes: { [name]: stringAttribute('v') } });
      const refused = refusal(requestOf(record, 'q'));
      expect(refused.code).toBe('EMQ_INVALID_REQUEST');
      expect(refused.message).toContain(name);
      expect(refused.message).toContain('emq-job-id');
    },
  );

  it('refuses one emq-* attribute sent twice in different cases', () => {
    const record = sqsRecord({
      attributes: { 'emq-queue': stringAttribute('a'), 'EMQ-QUEUE': stringAttribute('b') },
    });
    expect(refusal(requestOf(record, 'q')).code).toBe('EMQ_INVALID_REQUEST');
  });

  it('accepts the reason attributes of a dead letter replayed into the source', () => {
    const record = sqsRecord({
      body: 'x',
      attributes: {
        'emq-error-code': stringAttribute('EMQ_INVALID_QUEUE'),
        'emq-error-detail': stringAttribute('...'),
        'emq-source-message-id': stringAttribute('m-1'),
        'other-attribute': stringAttribute('kept'),
      },
    });
    expect(request(requestOf(record, 'q')).queue).toBe('q');
  });

  it("judges a caller id's age from when the message was sent, not from when it is handled", () => {
    const nowMs = Date.now();
    const config = configure({ callerIdMaxAgeMs: 86_400_000 });
    const day = 86_400_000;
    // Minted 25 hours ago and sent right then: handled now it is not too old.
    const late = sqsRecord({
      jobId: jobIdAt(nowMs - 25 * 3_600_000, 1),
      sentAt: nowMs - 25 * 3_600_000,
    });
    // Minted two days before it was sent: too old.
    const old = sqsRecord({ jobId: jobIdAt(nowMs - 2 * day, 1) });
    // Minted two minutes after it was sent: in the future.
    const ahead = sqsRecord({ jobId: jobIdAt(nowMs + 120_000, 1), sentAt: nowMs });
    const { faults } = prepare(
      config,
      [late, old, ahead].map((record) => requestOf(record, 'q')),
      { nowMs },
    );
    expect(faults.map((fault) => [fault.index, fault.error.code])).toEqual([
      [1, 'EMQ_INVALID_ID'],
      [2, 'EMQ_INVALID_ID'],
    ]);
    expect(request(requestOf(late, 'q')).sentAtMs).toBe(nowMs - 25 * 3_600_000);
  });

  describe('refuses a record SQS could not have delivered, whatever field is wrong', () => {
    // A direct invoke can send anything: a field of the wrong type is the record's own fault,
    // never admitted with the field ignored or its data altered.
    const broken: [string, (record: SQSRecord) => unknown][] = [
      ['a body that is not a text', (record) => ({ ...record, body: 42 })],
      ['a body holding a lone surrogate', (record) => ({ ...record, body: 'a\ud800b' })],
      ['a body ending in a lone high surrogate', (record) => ({ ...record, body: 'ab\udbff' })],
      ['messageAttributes that are a text', (record) => ({ ...record, messageAttributes: 'x' })],
      ['messageAttributes that are a list', (record) => ({ ...record, messageAttributes: [] })],
      [
        'another attribute that is not one',
        (record) => ({ ...record, messageAttributes: { trace: { dataType: 'String' } } }),
      ],
      [
        'another attribute holding a lone surrogate',
        (record) => ({ ...record, messageAttributes: { trace: stringAttribute('\udc00') } }),
      ],
      [
        'an emq-queue holding a lone surrogate',
        (record) => ({ ...record, messageAttributes: { 'emq-queue': stringAttribute('q\ud800') } }),
      ],
      [
        'an emq-job-id of the Number type',
        (record) => ({
          ...record,
          messageAttributes: { 'emq-job-id': { ...stringAttribute(mintId()), dataType: 'Number' } },
        }),
      ],
      [
        'an emq-encoding of a type that is not a String',
        (record) => ({
          ...record,
          body: 'eA==',
          messageAttributes: {
            'emq-encoding': { ...stringAttribute('base64'), dataType: 'Stringly' },
          },
        }),
      ],
      [
        'an emq-queue whose value is a number',
        (record) => ({
          ...record,
          messageAttributes: { 'emq-queue': { ...stringAttribute('q'), stringValue: 7 } },
        }),
      ],
      [
        'an ApproximateReceiveCount that is not a text',
        (record) => ({
          ...record,
          attributes: { ...record.attributes, ApproximateReceiveCount: 1 },
        }),
      ],
      [
        'a SentTimestamp that is not a text',
        (record) => ({
          ...record,
          attributes: { ...record.attributes, SentTimestamp: Date.now() },
        }),
      ],
      ['attributes that are a text', (record) => ({ ...record, attributes: 'x' })],
      ['an eventSourceARN that is not a text', (record) => ({ ...record, eventSourceARN: 5 })],
    ];
    it.each(broken)('%s', (_, breakIt) => {
      const record = breakIt(sqsRecord({ body: 'x' })) as SQSRecord;
      const refused = refusal(requestOf(record, 'q'));
      expect(refused.code).toBe('EMQ_INVALID_REQUEST');
      expect(refused.messageFault).toBe(true);
    });
  });

  it('quotes at most 64 characters of an attribute name it refuses', () => {
    const name = `emq-${'x'.repeat(100_000)}`;
    const record = sqsRecord({ body: 'x', attributes: { [name]: stringAttribute('v') } });
    expect(refusal(requestOf(record, 'q')).message.length).toBeLessThan(300);
  });

  it('stores a surrogate pair (an emoji) as sent', () => {
    expect(request(requestOf(sqsRecord({ body: 'a😀b' }), 'q')).payload).toEqual(
      Buffer.from('a😀b', 'utf8'),
    );
  });
});
