/**
 * Strict base64 for both faces (RFC 4648 §4, standard alphabet, padded). Node's decoder
 * skips characters it does not know, so "not base64" would silently become a shorter or
 * empty payload: every base64 input is checked here first.
 *
 * The check is a scan, not one anchored regular expression over the whole text: V8 runs a
 * repeated group such as `(?:[A-Za-z0-9+/]{4})*` on its backtracking stack, which overflows
 * (a RangeError) on a text of a few megabytes, and a request body is up to 8 MiB of base64.
 */

/** Any character outside the alphabet and its padding. */
const OUTSIDE = /[^A-Za-z0-9+/=]/;

/** The bytes of `text`, or undefined when it is not strict base64. Line breaks (MIME style) are allowed. */
export function decodeBase64(text: string): Buffer | undefined {
  const joined = text.includes('\n') ? text.replace(/\r?\n/g, '') : text;
  if (joined.length % 4 !== 0 || OUTSIDE.test(joined)) return undefined;
  // Padding only at the end: at most two `=`, nothing after them.
  const padding = joined.indexOf('=');
  if (padding !== -1 && (padding < joined.length - 2 || !/^=+$/.test(joined.slice(padding)))) {
    return undefined;
  }
  return Buffer.from(joined, 'base64');
}

/** How many bytes `text` decodes to, without decoding it (a bound when it is not strict base64). */
export function decodedLength(text: string): number {
  let breaks = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
    breaks += text[at - 1] === '\r' ? 2 : 1;
  }
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor(((text.length - breaks) * 3) / 4) - padding);
}
