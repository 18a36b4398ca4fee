/**
 * JOB ids (docs/wire.md, "Job ids"): `JOB` + 11 base62 digits, a fixed-width big-endian number
 * below 2^64. The number is `(ms since 2024-01-01Z) << 22 | low22`, so byte order is time order.
 */
import { randomInt } from 'node:crypto';

export const JOB_ID_PREFIX = 'JOB';
export const JOB_ID_LENGTH = 14;
/** The id clock's zero: 2024-01-01T00:00:00Z. */
const ID_EPOCH_MS = Date.UTC(2024, 0, 1);

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const DIGITS = 11;
const LOW_BITS = 22;
const LOW_SPAN = 2 ** LOW_BITS;
const LOW_MASK = LOW_SPAN - 1;
const WORD = 2 ** 32;

/** The alphabet's character codes, and a scratch id: `JOB`'s codes, then the digits' codes. */
const CODES = Array.from(ALPHABET, (char) => char.charCodeAt(0));
const scratch = Array.from(`${JOB_ID_PREFIX}${'0'.repeat(DIGITS)}`, (char) => char.charCodeAt(0));

/**
 * Encodes the 64-bit value `ms * 2^22 + low` in base62. Doubles hold 53 bits, so the value is
 * carried as two 32-bit words and divided by 62 in long division; no BigInt on the hot path.
 * The id is made in one String.fromCharCode: a flat string, where prepending digit by digit
 * made eleven strings and a rope that every write of the id had to flatten again.
 */
function encode(ms: number, low: number): string {
  // ms < 2^42: its top 10 bits belong to the high word, the rest shift up under `low`.
  let hi = Math.floor(ms / 2 ** 10);
  let lo = (ms % 2 ** 10) * LOW_SPAN + low;
  for (let i = JOB_ID_LENGTH - 1; i >= JOB_ID_PREFIX.length; i--) {
    const hiRem = hi % 62;
    hi = (hi - hiRem) / 62;
    const cur = hiRem * WORD + lo;
    const rem = cur % 62;
    lo = (cur - rem) / 62;
    scratch[i] = CODES[rem] as number;
  }
  return String.fromCharCode(...scratch);
}

function decode(id: string): bigint {
  let value = 0n;
  for (let i = JOB_ID_PREFIX.length; i < id.length; i++) {
    value = value * 62n + BigInt(ALPHABET.indexOf(id.charAt(i)));
  }
  return value;
}

/** The largest valid id's digits, 2^64 - 1 in base62: longer-valued strings sort after it. */
const MAX_JOB_ID_DIGITS = (() => {
  let value = 2n ** 64n - 1n;
  let out = '';
  for (let i = 0; i < DIGITS; i++) {
    out = ALPHABET[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out;
})();

const SHAPE = /^JOB[0-9A-Za-z]{11}$/;

/** True for a well-formed id: the shape, and a value below 2^64. */
export function isJobId(id: string): boolean {
  // Fixed width and ASCII-ordered digits make string order numeric order.
  return SHAPE.test(id) && id.slice(JOB_ID_PREFIX.length) <= MAX_JOB_ID_DIGITS;
}

/** The id for a given time and low 22 bits (used for ids derived from a message). */
export function jobIdAt(timeMs: number, low22: number): string {
  const ms = Math.max(0, Math.floor(timeMs) - ID_EPOCH_MS);
  return encode(ms, low22 & LOW_MASK);
}

/** When an id was minted (its time part), as a Date. The id must be valid (see isJobId). */
export function jobIdTime(id: string): Date {
  return new Date(ID_EPOCH_MS + Number(decode(id) >> BigInt(LOW_BITS)));
}

/** A source of ids. Each instance mints strictly increasing ids. */
export interface IdMinter {
  mint(): string;
}

/**
 * Creates a minter. `now` is injectable so tests can step the clock; production uses Date.now.
 * A fresh millisecond starts `low22` at a random value so two processes rarely collide; within
 * a millisecond it counts up. A clock that steps back keeps the last millisecond, and a low
 * part that overflows borrows the next millisecond, so no id is ever minted twice or out of order.
 */
export function createIdMinter(now: () => number = Date.now): IdMinter {
  let lastMs = -1;
  let low = 0;
  return {
    mint() {
      const ms = Math.max(0, now() - ID_EPOCH_MS);
      if (ms > lastMs) {
        lastMs = ms;
        low = randomInt(LOW_SPAN);
      } else if (low < LOW_MASK) {
        low += 1;
      } else {
        lastMs += 1;
        low = randomInt(LOW_SPAN);
      }
      return encode(lastMs, low);
    },
  };
}

const processMinter = createIdMinter();

/** Mints a new id from this process's minter. */
export function mintId(): string {
  return processMinter.mint();
}
