/**
 * One message attribute as the Lambda event carries it, read strictly: SQS delivers each as a
 * data type (`String`, `Number` or `Binary`, optionally with a custom `.label`) and one value
 * (`stringValue`, or `binaryValue` in base64), the list fields empty. Anything else came from a
 * direct invoke and is not an attribute SQS could hold: the record is at fault, and its dead
 * letter could not carry the attribute intact either (docs/reliability.md, "The SQS face").
 */
import { decodeBase64 } from '../shared/base64.js';
import { storable } from './sqs-text.js';

export type AttributeValue =
  | { readonly dataType: string; readonly stringValue: string; readonly binaryValue?: undefined }
  | { readonly dataType: string; readonly binaryValue: Buffer; readonly stringValue?: undefined };

/** SQS's data types: a base type, then an optional custom label; 256 characters at most. */
const DATA_TYPE = /^(String|Number|Binary)(\.[\x21-\x7e]+)?$/;
const MAX_DATA_TYPE_CHARS = 256;

/** The attribute's type and value, or undefined when it is not one SQS could have delivered. */
export function attributeValue(attribute: unknown): AttributeValue | undefined {
  if (typeof attribute !== 'object' || attribute === null || Array.isArray(attribute)) {
    return undefined;
  }
  const { dataType, stringValue, binaryValue, stringListValues, binaryListValues } =
    attribute as Record<string, unknown>;
  if (typeof dataType !== 'string' || dataType.length > MAX_DATA_TYPE_CHARS) return undefined;
  const base = DATA_TYPE.exec(dataType)?.[1];
  // List values are reserved by SQS and never delivered: a list that holds anything is data
  // this face could neither read nor pass on.
  if (!emptyList(stringListValues) || !emptyList(binaryListValues)) return undefined;
  if (base === 'String' || base === 'Number') {
    if (typeof stringValue !== 'string' || !storable(stringValue) || binaryValue != null) {
      return undefined;
    }
    return { dataType, stringValue };
  }
  if (base === 'Binary') {
    if (typeof binaryValue !== 'string' || stringValue != null) return undefined;
    const bytes = decodeBase64(binaryValue);
    return bytes === undefined ? undefined : { dataType, binaryValue: bytes };
  }
  return undefined;
}

function emptyList(list: unknown): boolean {
  return list == null || (Array.isArray(list) && list.length === 0);
}
