/**
 * One SQS record to one enqueue request (docs/wire.md). Only the record's shape is read here
 * (attributes, body, when it was sent); the queue name, the id, its age and the payload size
 * are the core's to judge. A record whose fields are not what SQS delivers (a direct invoke
 * can send anything) is refused whole, never admitted with a field ignored or altered: the
 * refusal is the record's own fault, so it goes to the DLQ (docs/reliability.md, "The SQS face").
 */
import type { SQSRecord } from 'aws-lambda';
import type { EnqueueRequest } from '../../src/admission/admission.js';
import { InvalidInputError } from '../../src/outcomes/outcomes.js';
import { decodeBase64 } from '../shared/base64.js';
import {
  ENCODING_ATTRIBUTE,
  JOB_ID_ATTRIBUTE,
  QUEUE_ATTRIBUTE,
  REASON_ATTRIBUTES,
} from '../shared/sqs-attributes.js';
import { type AttributeValue, attributeValue } from './message-attribute.js';
import { quoted, storable } from './sqs-text.js';

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
    checkSystemAttributes(record.attributes);
    // It says whether the record is ordered (waves.ts): a record that cannot say is refused.
    if (record.eventSourceARN != null && typeof record.eventSourceARN !== 'string') {
      throw notFromSqs("The record's eventSourceARN is not a text");
    }
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
 * SQS's own attributes (ApproximateReceiveCount, SentTimestamp, MessageGroupId...) are all
 * text; anything else did not come from SQS.
 */
function checkSystemAttributes(attributes: unknown): void {
  if (attributes === undefined || attributes === null) return;
  if (typeof attributes !== 'object' || Array.isArray(attributes)) {
    throw notFromSqs("The record's attributes are not an object");
  }
  const wrong = Object.entries(attributes).find(([, value]) => typeof value !== 'string')?.[0];
  if (wrong !== undefined)
    throw notFromSqs(`The record's attribute ${quoted(wrong)} is not a text`);
}

function notFromSqs(what: string): InvalidInputError {
  return new InvalidInputError('EMQ_INVALID_REQUEST', `${what}: it is not a record SQS delivers.`);
}

/**
 * The emq-* attributes by lower-case name: SQS keeps names as sent, and a producer writing
 * `EMQ-Queue` means `emq-queue`. An unknown emq-* name (a typo such as `emq-job_id`) or one
 * name sent twice in different cases is refused, never silently ignored: the message would
 * otherwise land in the wrong queue or under the wrong id. Every attribute, emq-* or not, must
 * be one SQS could hold: a record carrying another is not one SQS delivered.
 */
function emqAttributes(attributes: unknown): ReadonlyMap<string, AttributeValue> {
  if (attributes === undefined || attributes === null) return NO_ATTRIBUTES;
  if (typeof attributes !== 'object' || Array.isArray(attributes)) {
    throw notFromSqs("The record's messageAttributes are not an object");
  }
  let found: Map<string, AttributeValue> | undefined;
  // Most records carry no emq-* attribute: no map is made for them.
  for (const [name, raw] of Object.entries(attributes)) {
    const attribute = attributeValue(raw);
    if (attribute === undefined) {
      throw new InvalidInputError(
        'EMQ_INVALID_REQUEST',
        `The message attribute ${quoted(name)} is not one SQS holds: a String, Number or Binary data type and one value of that type, as text that can be stored as sent.`,
      );
    }
    const lower = name.toLowerCase();
    if (!lower.startsWith('emq-')) continue;
    if (!KNOWN_ATTRIBUTES.has(lower)) {
      throw new InvalidInputError(
        'EMQ_INVALID_REQUEST',
        `Unknown message attribute ${quoted(name)}: this function reads ${QUEUE_ATTRIBUTE}, ${JOB_ID_ATTRIBUTE} and ${ENCODING_ATTRIBUTE} (any case); rename or remove it.`,
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

const NO_ATTRIBUTES: ReadonlyMap<string, AttributeValue> = new Map();

function textAttribute(attribute: AttributeValue | undefined, name: string): string | undefined {
  if (attribute === undefined) return undefined;
  if (attribute.stringValue === undefined || !/^String(\.|$)/.test(attribute.dataType)) {
    throw new InvalidInputError(
      'EMQ_INVALID_REQUEST',
      `The message attribute ${name} must be of type String.`,
    );
  }
  return attribute.stringValue;
}

function payloadOf(body: unknown, encoding: string | undefined): Buffer {
  if (typeof body !== 'string') {
    throw new InvalidInputError('EMQ_INVALID_REQUEST', 'The record has no text body.');
  }
  if (!storable(body)) {
    throw new InvalidInputError(
      'EMQ_INVALID_REQUEST',
      'The body holds a lone UTF-16 surrogate: it cannot be stored as sent. Send well-formed text, or base64 with emq-encoding.',
    );
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
