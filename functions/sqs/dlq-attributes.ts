/**
 * The message attributes of a dead letter: the original ones, intact, plus the reason. SQS
 * allows 10 attributes per message, so the reason (3) always fits and the originals keep up to
 * 7 places: the emq-* routing attributes first (a replay needs them), then the others in the
 * order they came. Any left out for room are named in emq-error-detail, so nothing is lost
 * silently. An original that cannot be copied intact (not an attribute SQS could hold: a
 * direct invoke's) makes no letter at all: the record is retried instead, and the source
 * queue's own redrive moves it whole (docs/reliability.md, "The SQS face").
 */
import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import {
  ERROR_CODE_ATTRIBUTE,
  ERROR_DETAIL_ATTRIBUTE,
  REASON_ATTRIBUTES,
  ROUTING_ATTRIBUTES,
  SOURCE_MESSAGE_ID_ATTRIBUTE,
} from '../shared/sqs-attributes.js';
import { attributeValue } from './message-attribute.js';
import { quoted, storable } from './sqs-text.js';

/** SQS's limit on message attributes per message. */
export const MAX_MESSAGE_ATTRIBUTES = 10;
const MAX_DETAIL_CHARS = 1_024;
/** Names quoted in a note or a log line: the rest are counted. */
const MAX_NAMES_LISTED = 3;
/**
 * The longest messageId copied into emq-source-message-id: SQS's are 36 characters; a direct
 * invoke's can be any length, and an attribute never carries unbounded caller input.
 */
const MAX_SOURCE_ID_CHARS = 256;

export interface DeadLetterReason {
  readonly code: string;
  readonly detail: string;
  /** The record's messageId; undefined when it has none (event.ts). */
  readonly sourceMessageId: string | undefined;
}

export type DeadLetterAttributes =
  | {
      readonly attributes: Record<string, MessageAttributeValue>;
      /** Original attributes left out to fit the attribute limit, by name. */
      readonly dropped: readonly string[];
      readonly uncopyable?: undefined;
    }
  | {
      /** The first original attribute that cannot be copied intact, by name. */
      readonly uncopyable: string;
    };

export function deadLetterAttributes(
  original: unknown,
  reason: DeadLetterReason,
): DeadLetterAttributes {
  if (original != null && (typeof original !== 'object' || Array.isArray(original))) {
    return { uncopyable: 'messageAttributes' };
  }
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
  for (const [name, raw] of ordered) {
    const value = attributeValue(raw);
    if (value === undefined) return { uncopyable: name };
    if (Object.keys(attributes).length >= budget) dropped.push(name);
    else
      attributes[name] =
        value.stringValue !== undefined
          ? { DataType: value.dataType, StringValue: value.stringValue }
          : { DataType: value.dataType, BinaryValue: value.binaryValue };
  }
  const note =
    dropped.length === 0
      ? ''
      : ` (original message attributes left out to fit the SQS limit of ${MAX_MESSAGE_ATTRIBUTES}: ${namesListed(dropped)})`;
  attributes[ERROR_CODE_ATTRIBUTE] = text(reason.code);
  attributes[ERROR_DETAIL_ATTRIBUTE] = text(`${reason.detail.slice(0, MAX_DETAIL_CHARS)}${note}`);
  // SQS refuses an empty attribute value: a record without a messageId (or with one no
  // attribute should carry: too long, or not text SQS holds) has no such attribute.
  const source = reason.sourceMessageId ?? '';
  if (source.length > 0 && source.length <= MAX_SOURCE_ID_CHARS && storable(source)) {
    attributes[SOURCE_MESSAGE_ID_ATTRIBUTE] = text(source);
  }
  return { attributes, dropped };
}

/**
 * Attribute names a caller chose, for a note or a log line: the first few, each cut to 64
 * characters, and how many more. A direct invoke can send any number of any length.
 */
export function namesListed(names: readonly string[]): string {
  const listed = names
    .slice(0, MAX_NAMES_LISTED)
    .map((name) => (/^[\x21-\x7e]{1,64}$/.test(name) ? name : quoted(name)));
  const more = names.length - listed.length;
  return more > 0 ? `${listed.join(', ')} and ${more} more` : listed.join(', ');
}

function text(value: string): MessageAttributeValue {
  return { DataType: 'String', StringValue: value };
}
