/**
 * One SQS record to one enqueue request (SPEC §9). Only the attribute shapes are checked
 * here; the queue name, the id and the payload size are the core's to judge.
 */
import type { SQSMessageAttribute, SQSRecord } from 'aws-lambda';
import { type EnqueueRequest, InvalidInputError } from '../../src/index.js';
import { decodeBase64 } from '../shared/base64.js';

/** The message attributes this face reads. */
export const QUEUE_ATTRIBUTE = 'emq-queue';
export const JOB_ID_ATTRIBUTE = 'emq-job-id';
export const ENCODING_ATTRIBUTE = 'emq-encoding';

/**
 * The request a record asks for, or the reason it cannot be one. A record without
 * `emq-job-id` is keyed by its messageId, so every delivery of it maps to one job.
 */
export function requestOf(
  record: SQSRecord,
  defaultQueue: string,
): EnqueueRequest | InvalidInputError {
  try {
    const attributes = record.messageAttributes ?? {};
    const queue = textAttribute(attributes[QUEUE_ATTRIBUTE], QUEUE_ATTRIBUTE) ?? defaultQueue;
    const id = textAttribute(attributes[JOB_ID_ATTRIBUTE], JOB_ID_ATTRIBUTE);
    const payload = payloadOf(
      record.body,
      textAttribute(attributes[ENCODING_ATTRIBUTE], ENCODING_ATTRIBUTE),
    );
    if (id !== undefined) return { queue, payload, id };
    return { queue, payload, idempotencyKey: record.messageId, keyNamespace: 'sqs' };
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
}

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
