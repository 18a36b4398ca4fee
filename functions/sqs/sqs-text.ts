/**
 * Text from an SQS event. SQS stores a body or an attribute value only when every character is
 * one of #x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF, so no record it
 * delivers holds a lone surrogate; a direct invoke can send one (docs/reliability.md, "The SQS
 * face").
 */

/** A UTF-16 surrogate without its pair: `u` mode reads a paired one as one code point. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * True when `text` can be stored as sent: UTF-8 has no encoding for a lone surrogate, so
 * storing one would store U+FFFD, bytes nobody sent (and two different texts could become one).
 */
export function storable(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** A caller's name or value quoted in a message: at most 64 characters, as JSON. */
export function quoted(text: string): string {
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}
