/**
 * The message attributes of a dead letter: the original ones, intact, plus the reason. SQS
 * allows 10 attributes per message, so the reason (3) always fits and the originals keep up to
 * 7 places: the emq-* routing attributes first (a replay needs them), then the others in the
 * order they came. Any left out are named in emq-error-detail, so nothing is lost silently.
 */
import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSMessageAttributes } from 'aws-lambda';
import {
  ERROR_CODE_ATTRIBUTE,
  ERROR_DETAIL_ATTRIBUTE,
  REASON_ATTRIBUTES,
  ROUTING_ATTRIBUTES,
  SOURCE_MESSAGE_ID_ATTRIBUTE,
} from '../shared/sqs-attributes.js';

/** SQS's limit on message attributes per message. */
export const MAX_MESSAGE_ATTRIBUTES = 10;
const MAX_DETAIL_CHARS = 1_024;

export interface DeadLetterReason {
  readonly code: string;
  readonly detail: string;
  readonly sourceMessageId: string;
}

export interface DeadLetterAttributes {
  readonly attributes: Record<string, MessageAttributeValue>;
  /** Original attributes that did not fit (or had no value SQS accepts), by name. */
  readonly dropped: readonly string[];
}

export function deadLetterAttributes(
  original: SQSMessageAttributes | undefined,
  reason: DeadLetterReason,
): DeadLetterAttributes {
  // A record replayed from a DLQ still carries its old reason: the new one replaces it.
  // Names match in any case, as the face reads them (record.ts).
  const entries = Object.entries(original ?? {}).filter(
    ([name]) => !REASON_ATTRIBUTES.includes(name.toLowerCase()),
  );
  const ordered = [
    ...entries.filter(([name]) => ROUTING_ATTRIBUTES.includes(name.toLowerCase())),
    ...entries.filter(([name]) => !ROUTING_ATTRIBUTES.includes(name.toLowerCase())),
  ];
  const budget = MAX_MESSAGE_ATTRIBUTES - REASON_ATTRIBUTES.length;
  const attributes: Record<string, MessageAttributeValue> = {};
  const dropped: string[] = [];
  for (const [name, attribute] of ordered) {
    const value = sdkValue(attribute);
    if (value === undefined || Object.keys(attributes).length >= budget) dropped.push(name);
    else attributes[name] = value;
  }
  const note =
    dropped.length === 0
      ? ''
      : ` (original message attributes left out to fit the SQS limit of ${MAX_MESSAGE_ATTRIBUTES}: ${dropped.join(', ')})`;
  attributes[ERROR_CODE_ATTRIBUTE] = text(reason.code);
  attributes[ERROR_DETAIL_ATTRIBUTE] = text(`${reason.detail.slice(0, MAX_DETAIL_CHARS)}${note}`);
  attributes[SOURCE_MESSAGE_ID_ATTRIBUTE] = text(reason.sourceMessageId);
  return { attributes, dropped };
}

function text(value: string): MessageAttributeValue {
  return { DataType: 'String', StringValue: value };
}

/** The event carries binary values as base64; the SDK sends bytes. List values are unused by SQS. */
function sdkValue(attribute: SQSMessageAttributes[string]): MessageAttributeValue | undefined {
  // A direct invoke can send an attribute that is not one: it is left out, and named as dropped.
  if (typeof attribute !== 'object' || attribute === null) return undefined;
  if (typeof attribute.stringValue === 'string') {
    return { DataType: attribute.dataType, StringValue: attribute.stringValue };
  }
  if (typeof attribute.binaryValue === 'string') {
    return {
      DataType: attribute.dataType,
      BinaryValue: Buffer.from(attribute.binaryValue, 'base64'),
    };
  }
  return undefined;
}
