/**
 * Strict base64 for both faces (RFC 4648 §4, standard alphabet, padded). Node's decoder
 * skips characters it does not know, so "not base64" would silently become a shorter or
 * empty payload: every base64 input is checked here first.
 */

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The bytes of `text`, or undefined when it is not strict base64. Line breaks (MIME style) are allowed. */
export function decodeBase64(text: string): Buffer | undefined {
  const joined = text.replace(/\r?\n/g, '');
  return BASE64.test(joined) ? Buffer.from(joined, 'base64') : undefined;
}
