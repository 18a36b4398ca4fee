/**
 * One SQS record to one enqueue request (SPEC §9). Only the record's shape is read here
 * (attributes, body, when it was sent); the queue name, the id, its age and the payload size
 * are the core's to judge.
 */
import type { SQSMessageAttribute, SQSRecord } from 'aws-lambda';
import type { EnqueueRequest } from '../../src/admission/admission.js';
import { InvalidInputError } from '../../src/outcomes/outcomes.js';
import { decodeBase64 } from '../shared/base64.js';
import {
  ENCODING_ATTRIBUTE,
  JOB_ID_ATTRIBUTE,
  QUEUE_ATTRIBUTE,
  REASON_ATTRIBUTES,
} from '../shared/sqs-attributes.js';

/** What a record's refused `emq-job-id` should do. */
const ID_ADVICE =
  'Leave the emq-job-id attribute out: the record is then keyed by its SQS messageId, so a redelivery never makes a second job. To choose the id, mint one with `emq id` and send it soon.';

/**
 * The attributes this face reads, and those the DLQ adds to a dead letter: a letter replayed
 * into the source queue still carries them, and they must not make it a dead letter again.
 */
const KNOWN_ATTRIBUTES = new Set([
  QUEUE_ATTRIBUTE,
  JOB_ID_ATTRIBUTE,
  ENCODING_ATTRIBUTE,
  ...REASON_ATTRIBUTES,
]);

/**
 * The request a record asks for, or the reason its shape cannot be one. A record without
 * `emq-job-id` is keyed by its messageId, so every delivery of it maps to one job; a caller's
 * id is judged from when the message was sent, not from when it is processed.
 */
export function requestOf(
  record: SQSRecord,
  defaultQueue: string,
): EnqueueRequest | InvalidInputError {
  try {
    const attributes = emqAttributes(record.messageAttributes);
    const queue = textAttribute(attributes.get(QUEUE_ATTRIBUTE), QUEUE_ATTRIBUTE) ?? defaultQueue;
    const id = textAttribute(attributes.get(JOB_ID_ATTRIBUTE), JOB_ID_ATTRIBUTE);
    const payload = payloadOf(
      record.body,
      textAttribute(attributes.get(ENCODING_ATTRIBUTE), ENCODING_ATTRIBUTE),
    );
    const sent = Number(record.attributes?.SentTimestamp);
    return {
      queue,
      payload,
      id,
      idempotencyKey: record.messageId,
      origin: 'sqs',
      sentAtMs: Number.isSafeInteger(sent) && sent > 0 ? sent : undefined,
      ...(id === undefined ? {} : { idAdvice: ID_ADVICE }),
    };
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
}

/**
 * The emq-* attributes by lower-case name: SQS keeps names as sent, and a producer writing
 * `EMQ-Queue` means `emq-queue`. An unknown emq-* name (a typo such as `emq-job_id`) or one
 * name sent twice in different cases is refused, never silently ignored: the message would
 * otherwise land in the wrong queue or under the wrong id.
 */
function emqAttributes(
  attributes: SQSRecord['messageAttributes'] | undefined,
): ReadonlyMap<string, SQSMessageAttribute> {
  let found: Map<string, SQSMessageAttribute> | undefined;
  // Most records carry no emq-* attribute: no map is made for them.
  for (const [name, attribute] of Object.entries(attributes ?? {})) {
    const lower = name.toLowerCase();
    if (!lower.startsWith('emq-')) continue;
    if (!KNOWN_ATTRIBUTES.has(lower)) {
      throw new InvalidInputError(
        'EMQ_INVALID_REQUEST',
        `Unknown message attribute ${JSON.stringify(name.slice(0, 64))}: this function reads ${QUEUE_ATTRIBUTE}, ${JOB_ID_ATTRIBUTE} and ${ENCODING_ATTRIBUTE} (any case); rename or remove it.`,
      );
    }
    found ??= new Map();
    if (found.has(lower)) {
      throw new InvalidInputError(
        'EMQ_INVALID_REQUEST',
        `The message attribute ${lower} is sent twice, in different cases; send it once.`,
      );
    }
    found.set(lower, attribute);
  }
  return found ?? NO_ATTRIBUTES;
}

const NO_ATTRIBUTES: ReadonlyMap<string, SQSMessageAttribute> = new Map();

function textAttribute(
  attribute: SQSMessageAttribute | undefined,
  name: string,
): string | undefined {
  if (attribute === undefined) return undefined;
  // A direct invoke can send anything: an attribute that is not one is refused, not a crash.
  if (
    typeof attribute !== 'object' ||
    attribute === null ||
    typeof attribute.stringValue !== 'string' ||
    typeof attribute.dataType !== 'string' ||
    !attribute.dataType.startsWith('String')
  ) {
    throw new InvalidInputError(
      'EMQ_INVALID_REQUEST',
      `The message attribute ${name} must be of type String.`,
    );
  }
  return attribute.stringValue;
}

function payloadOf(body: string, encoding: string | undefined): Buffer {
  if (typeof body !== 'string') {
    throw new InvalidInputError('EMQ_INVALID_REQUEST', 'The record has no text body.');
  }
  if (encoding === undefined) return Buffer.from(body, 'utf8');
  if (encoding !== 'base64') {
    throw new InvalidInputError(
      'EMQ_INVALID_REQUEST',
      `Unsupported ${ENCODING_ATTRIBUTE} ${JSON.stringify(encoding.slice(0, 32))}: the only encoding is base64; leave the attribute out for a text body.`,
    );
  }
  const bytes = decodeBase64(body);
  if (bytes === undefined) {
    throw new InvalidInputError(
      'EMQ_INVALID_REQUEST',
      `The body is not valid base64, though ${ENCODING_ATTRIBUTE} says it is (standard alphabet, padded).`,
    );
  }
  return bytes;
}
