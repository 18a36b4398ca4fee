/**
 * Generated SQS batches: records shaped as Lambda delivers them, with the emq-* attributes
 * (queue, job id, encoding) present, absent, of the wrong data type or invalid; text and base64
 * bodies up to and past the cap; first deliveries and redeliveries; pooled messageIds so runs
 * replay messages; standard and FIFO sources; and records broken outright.
 */

import type { SQSMessageAttribute, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import fc from 'fast-check';
import { sqsRecord, stringAttribute } from '../../fixtures/sqs/records.js';
import { brokenBase64Arb, jobIdArb, ONE_MIB, payloadArb, queueArb } from './pools.js';

const MESSAGE_IDS = [
  '059f36b4-87a3-44ab-83d2-661975830a7d',
  '2e1424d4-f796-459a-8184-9c92662be6da',
  '9c7d1a0e-3f52-4b8e-a6d1-0f2b3c4d5e6f',
];
const SENT_AT = Date.UTC(2025, 10, 30, 10, 12, 31);

/** An attribute's value as the event would carry it, right or wrong in its data type. */
function attributeArb(value: fc.Arbitrary<string>): fc.Arbitrary<SQSMessageAttribute> {
  return fc.oneof(
    { weight: 12, arbitrary: value.map(stringAttribute) },
    {
      weight: 1,
      arbitrary: value.map((text) => ({ ...stringAttribute(text), dataType: 'String.custom' })),
    },
    {
      weight: 1,
      arbitrary: value.map((text) => ({ ...stringAttribute(text), dataType: 'Number' })),
    },
    {
      weight: 1,
      arbitrary: value.map((text) => ({
        binaryValue: Buffer.from(text).toString('base64'),
        stringListValues: [],
        binaryListValues: [],
        dataType: 'Binary',
      })),
    },
  );
}

/**
 * Bytes as text SQS holds: SQS refuses a body with a character outside #x9 | #xA | #xD |
 * #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF at send, so no record Lambda delivers from a
 * queue has one (a direct invoke can send anything: brokenArb). Each such character becomes
 * characters of the same UTF-8 length, so sizes around the cap stay as generated. Characters
 * beyond U+FFFF are replaced too: SQS takes them, but the emulator the DLQ runs on refuses
 * them (see test/integration/sqs-dlq.test.ts), which would read as a refused dead letter here.
 */
function sqsText(bytes: Uint8Array): string {
  return Buffer.from(bytes)
    .toString('utf8')
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD]/gu, (char) =>
      char.length === 2 ? '\uFFFD ' : char < ' ' ? ' ' : '\uFFFD',
    );
}

function bodyArb(): fc.Arbitrary<{ body: string; encoding: string | undefined }> {
  return fc.oneof(
    {
      weight: 4,
      arbitrary: payloadArb().map((bytes) => ({ body: sqsText(bytes), encoding: undefined })),
    },
    {
      weight: 4,
      arbitrary: payloadArb().map((bytes) => ({
        body: Buffer.from(bytes).toString('base64'),
        encoding: 'base64',
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(payloadArb(), fc.constantFrom('BASE64', 'gzip', '', 'base64 '))
        .map(([bytes, encoding]) => ({ body: Buffer.from(bytes).toString('base64'), encoding })),
    },
    { weight: 1, arbitrary: brokenBase64Arb().map((body) => ({ body, encoding: 'base64' })) },
  );
}

interface RecordCase {
  readonly body: { body: string; encoding: string | undefined };
  readonly queue: SQSMessageAttribute | undefined;
  readonly jobId: SQSMessageAttribute | undefined;
  readonly encoding: SQSMessageAttribute | undefined;
  readonly messageId: string;
  readonly receiveCount: string;
  readonly sentAt: string | undefined;
}

function recordCaseArb(queues: readonly string[]): fc.Arbitrary<RecordCase> {
  return fc
    .record({
      body: bodyArb(),
      queue: fc.option(attributeArb(queueArb(queues)), { freq: 4, nil: undefined }),
      jobId: fc.option(attributeArb(jobIdArb()), { freq: 2, nil: undefined }),
      encodingType: fc.constantFrom('as-body', 'as-body', 'as-body', 'wrong-type'),
      messageId: fc.oneof(
        { weight: 6, arbitrary: fc.uuid() },
        { weight: 6, arbitrary: fc.constantFrom(...MESSAGE_IDS) },
        { weight: 1, arbitrary: fc.constantFrom('', 'with space', 'x'.repeat(300), 'clé') },
      ),
      receiveCount: fc.oneof(
        { weight: 6, arbitrary: fc.constant('1') },
        { weight: 2, arbitrary: fc.constantFrom('2', '5') },
        { weight: 1, arbitrary: fc.constantFrom('0', 'x', '') },
      ),
      sentAt: fc.oneof(
        { weight: 6, arbitrary: fc.constant(String(SENT_AT)) },
        { weight: 1, arbitrary: fc.constantFrom('0', '-1', 'abc', '1e20', '1.5', undefined) },
      ),
    })
    .map(({ body, encodingType, ...rest }) => ({
      ...rest,
      body,
      encoding:
        body.encoding === undefined
          ? undefined
          : encodingType === 'wrong-type'
            ? { ...stringAttribute(body.encoding), dataType: 'Number' }
            : stringAttribute(body.encoding),
    }));
}

function render(spec: RecordCase, groupId: string | undefined): SQSRecord {
  const attributes: SQSMessageAttributes = {};
  if (spec.queue !== undefined) attributes['emq-queue'] = spec.queue;
  if (spec.jobId !== undefined) attributes['emq-job-id'] = spec.jobId;
  if (spec.encoding !== undefined) attributes['emq-encoding'] = spec.encoding;
  const record = sqsRecord({
    body: spec.body.body,
    attributes,
    messageId: spec.messageId,
    sentAt: SENT_AT,
    ...(groupId === undefined ? {} : { groupId }),
  });
  const { SentTimestamp: _, ...others } = record.attributes;
  return {
    ...record,
    attributes: {
      ...others,
      ...(spec.sentAt === undefined ? {} : { SentTimestamp: spec.sentAt }),
      ApproximateReceiveCount: spec.receiveCount,
    } as SQSRecord['attributes'],
  };
}

/** A record broken beyond the event format: a direct invoke could send it. */
function brokenArb(queues: readonly string[]): fc.Arbitrary<SQSRecord> {
  const breakage = fc.constantFrom<(record: SQSRecord) => unknown>(
    (record) => ({ ...record, messageAttributes: undefined }),
    (record) => ({ ...record, attributes: undefined }),
    (record) => ({ ...record, messageAttributes: { 'emq-queue': null } }),
    (record) => ({ ...record, messageAttributes: { 'emq-job-id': { dataType: 'String' } } }),
    (record) => ({ ...record, body: undefined }),
    (record) => ({ ...record, body: 42 }),
    (record) => ({ ...record, eventSourceARN: undefined }),
  );
  return fc
    .tuple(recordCaseArb(queues), breakage)
    .map(([spec, breakIt]) => breakIt(render(spec, undefined)) as SQSRecord);
}

/**
 * What a direct invoke (or a hand-built test event) can hand the face, field by field: a body
 * that is not a string, attributes and message attributes of the wrong shape, no messageId or
 * one of the wrong type, and values of 1 MiB where SQS would have capped them.
 */
const HOSTILE_BREAKAGES: Readonly<Record<string, (record: SQSRecord) => unknown>> = {
  'body object': (record) => ({ ...record, body: { payload: 'x' } }),
  'body null': (record) => ({ ...record, body: null }),
  'body array': (record) => ({ ...record, body: ['x'] }),
  'body number': (record) => ({ ...record, body: 7 }),
  'attributes text': (record) => ({ ...record, attributes: 'SentTimestamp=1' }),
  'attributes array': (record) => ({ ...record, attributes: [record.attributes] }),
  'SentTimestamp number': (record) => ({
    ...record,
    attributes: { ...record.attributes, SentTimestamp: Date.now() },
  }),
  'ApproximateReceiveCount object': (record) => ({
    ...record,
    attributes: { ...record.attributes, ApproximateReceiveCount: { n: 1 } },
  }),
  'messageAttributes text': (record) => ({ ...record, messageAttributes: 'emq-queue=q' }),
  'messageAttributes array': (record) => ({ ...record, messageAttributes: [{ 'emq-queue': 'q' }] }),
  'emq-queue stringValue number': (record) => ({
    ...record,
    messageAttributes: { 'emq-queue': { ...stringAttribute('q'), stringValue: 7 } },
  }),
  'emq-queue without dataType': (record) => ({
    ...record,
    messageAttributes: { 'emq-queue': { stringValue: 'q' } },
  }),
  'emq-encoding text': (record) => ({
    ...record,
    messageAttributes: { ...record.messageAttributes, 'emq-encoding': 'base64' },
  }),
  'no messageId': (record) => {
    const { messageId: _, ...rest } = record;
    return rest;
  },
  'messageId null': (record) => ({ ...record, messageId: null }),
  'messageId number': (record) => ({ ...record, messageId: 42 }),
  'messageId object': (record) => ({ ...record, messageId: { id: 'm' } }),
  'messageId 1 MiB': (record) => ({ ...record, messageId: ONE_MIB }),
  'emq-queue 1 MiB': (record) => ({
    ...record,
    messageAttributes: { ...record.messageAttributes, 'emq-queue': stringAttribute(ONE_MIB) },
  }),
  'emq-job-id 1 MiB': (record) => ({
    ...record,
    messageAttributes: { 'emq-job-id': stringAttribute(`JOB${ONE_MIB}`) },
  }),
  'attribute name 1 MiB': (record) => ({
    ...record,
    messageAttributes: { ...record.messageAttributes, [ONE_MIB]: stringAttribute('x') },
  }),
};

export interface HostileBatch {
  /** The breakages the batch's hostile records carry, for the run's summary. */
  readonly labels: readonly string[];
  readonly records: readonly SQSRecord[];
  /** Indexes of the hostile records. */
  readonly hostile: ReadonlySet<number>;
}

/**
 * Up to 10 records, one to three of them hostile (HOSTILE_BREAKAGES), at any place in the
 * batch: the others are well-formed, from a standard queue.
 */
export function sqsHostileBatchArb(queues: readonly string[]): fc.Arbitrary<HostileBatch> {
  const hostile = fc.tuple(
    recordCaseArb(queues),
    fc.constantFrom(...Object.keys(HOSTILE_BREAKAGES)),
  );
  return fc
    .tuple(
      fc.array(recordCaseArb(queues), { minLength: 0, maxLength: 7 }),
      fc.array(hostile, { minLength: 1, maxLength: 3 }),
      fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
    )
    .map(([fine, broken, places]) => {
      const slots = fine.map((spec) => ({ record: render(spec, undefined), hostile: false }));
      broken.forEach(([spec, label], at) => {
        const breakIt = HOSTILE_BREAKAGES[label] as (record: SQSRecord) => unknown;
        const place = (places[at] ?? 0) % (slots.length + 1);
        slots.splice(place, 0, {
          record: breakIt(render(spec, undefined)) as SQSRecord,
          hostile: true,
        });
      });
      return {
        labels: broken.map(([, label]) => label),
        records: slots.map((slot) => slot.record),
        hostile: new Set(slots.flatMap((slot, index) => (slot.hostile ? [index] : []))),
      };
    });
}

function recordsArb(queues: readonly string[]): fc.Arbitrary<RecordCase[]> {
  return fc.array(recordCaseArb(queues), { minLength: 1, maxLength: 10, size: 'max' });
}

/** 1 to 10 well-formed records, as one poll of a standard or a FIFO queue. */
export function sqsBatchArb(queues: readonly string[]): fc.Arbitrary<SQSRecord[]> {
  const groups = fc.array(fc.constantFrom('g1', 'g2', 'g3'), { minLength: 10, maxLength: 10 });
  return fc.oneof(
    {
      weight: 3,
      arbitrary: recordsArb(queues).map((specs) => specs.map((spec) => render(spec, undefined))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(recordsArb(queues), groups)
        .map(([specs, names]) => specs.map((spec, at) => render(spec, names[at]))),
    },
  );
}

/** Up to 9 well-formed records and, last, one broken beyond the event format. */
export function sqsBatchWithBrokenRecordArb(queues: readonly string[]): fc.Arbitrary<SQSRecord[]> {
  return fc
    .tuple(recordsArb(queues), brokenArb(queues))
    .map(([specs, broken]) => [
      ...specs.slice(0, 9).map((spec) => render(spec, undefined)),
      broken,
    ]);
}
