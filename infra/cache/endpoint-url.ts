/** The form of a Valkey endpoint the functions take (EMQ_URL). */

/** `host:port` means TLS; a URL keeps its scheme. Undefined when the value is no endpoint. */
export function normaliseUrl(value: string): string | undefined {
  const text = value.trim();
  const url = /^[a-z]+:\/\//.test(text) ? text : `rediss://${text}`;
  try {
    const parsed = new URL(url);
    const ok =
      (parsed.protocol === 'redis:' || parsed.protocol === 'rediss:') &&
      parsed.hostname !== '' &&
      parsed.port !== '' &&
      parsed.username === '' &&
      parsed.password === '' &&
      (parsed.pathname === '' || parsed.pathname === '/');
    return ok ? `${parsed.protocol}//${parsed.host}` : undefined;
  } catch {
    return undefined;
  }
}
