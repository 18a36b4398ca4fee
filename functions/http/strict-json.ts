/**
 * What JSON.parse lets through and a request body must not hold (docs/security.md, "Fail
 * closed"): a member name given twice in one object (JSON.parse keeps the last, so the caller
 * and this function would read two different requests), and a string holding a lone UTF-16
 * surrogate (`"\ud800"`: no UTF-8 stores it, so it would be written as U+FFFD, bytes nobody
 * sent, and two different strings would become one). A reviver cannot help: it sees each
 * member once, after the duplicate was dropped. So the text is scanned once, after JSON.parse
 * accepted it, and every such string is named by its path in the document.
 */

/** Where a string lies in the document: member names and array indexes from the root. */
export type JsonPath = readonly (string | number)[];

/** A string the document must not hold, and where. */
export interface JsonFault {
  readonly kind: 'duplicate' | 'surrogate';
  /** The object holding the duplicate, or the member or element holding the surrogate. */
  readonly path: JsonPath;
  /** The member name given twice, or the name holding the surrogate (a member name can hold one too). */
  readonly name?: string;
}

/** A lone surrogate: with the `u` flag, a pair is one code point and does not match. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** True when `text` holds a lone UTF-16 surrogate: UTF-8 cannot store it as sent. */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

interface Frame {
  readonly kind: 'object' | 'array';
  /** Member names seen so far (objects). */
  readonly names: Set<string>;
  /** The next string is a member name (objects), between `{` or `,` and `:`. */
  expectName: boolean;
  /** The member or index the value being read belongs to. */
  at: string | number;
}

/**
 * Every duplicated member name and lone surrogate of `text`, which JSON.parse has accepted
 * (the scan relies on it being valid JSON), in document order.
 */
export function jsonFaults(text: string): JsonFault[] {
  const faults: JsonFault[] = [];
  const stack: Frame[] = [];
  const pathTo = (): (string | number)[] => stack.map((frame) => frame.at);
  let at = 0;
  while (at < text.length) {
    const char = text.charCodeAt(at);
    const top = stack.at(-1);
    if (char === 0x22) {
      const end = stringEnd(text, at);
      const token = text.slice(at, end + 1);
      // Only an escape can make a lone surrogate: UTF-8 that is valid (checked before) cannot.
      const value = token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
      if (top?.kind === 'object' && top.expectName) {
        if (top.names.has(value)) {
          faults.push({ kind: 'duplicate', path: pathTo().slice(0, -1), name: value });
        }
        top.names.add(value);
        top.at = value;
        if (hasLoneSurrogate(value)) {
          faults.push({ kind: 'surrogate', path: pathTo(), name: value });
        }
      } else if (hasLoneSurrogate(value)) {
        faults.push({ kind: 'surrogate', path: pathTo() });
      }
      at = end + 1;
      continue;
    }
    if (char === 0x7b || char === 0x5b) {
      const object = char === 0x7b;
      stack.push({
        kind: object ? 'object' : 'array',
        names: new Set(),
        expectName: object,
        at: object ? '' : 0,
      });
    } else if (char === 0x7d || char === 0x5d) {
      stack.pop();
    } else if (char === 0x3a && top !== undefined) {
      top.expectName = false;
    } else if (char === 0x2c && top !== undefined) {
      if (top.kind === 'object') top.expectName = true;
      else top.at = (top.at as number) + 1;
    }
    at += 1;
  }
  return faults;
}

/** The index of the quote that closes the string opening at `start` (the text's end if none). */
function stringEnd(text: string, start: number): number {
  let at = start + 1;
  while (at < text.length) {
    const char = text.charCodeAt(at);
    if (char === 0x22) return at;
    // An escape: the character after the backslash never closes the string.
    at += char === 0x5c ? 2 : 1;
  }
  return text.length;
}
