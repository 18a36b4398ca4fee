/**
 * Text as SQS holds it. SQS stores a body or an attribute value only when every character is
 * one of #x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF, so no record it
 * delivers breaks these rules; a direct invoke can send anything (docs/reliability.md, "The SQS
 * face").
 */

/** A UTF-16 surrogate without its pair: `u` mode reads a paired one as one code point. */
const LONE_SURROGATE = /\p{Cs}/u;

/** A character SQS refuses in a body or an attribute value. */
const OUTSIDE_SQS = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/**
 * True when `text` can be stored as sent: UTF-8 has no encoding for a lone surrogate, so
 * storing one would store U+FFFD, bytes nobody sent (and two different texts could become one).
 */
export function storable(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** True when SQS takes `text` as a body or an attribute value. */
export function sqsAccepts(text: string): boolean {
  return !OUTSIDE_SQS.test(text);
}

/** A caller's name or value quoted in a message: at most 64 characters, as JSON. */
export function quoted(text: string): string {
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}
