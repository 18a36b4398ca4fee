// No string of a log line is longer than 256 bytes, whoever wrote it: a field can hold what a
// caller sent, and one request must not write megabytes of log (docs/security.md).
import { afterEach, describe, expect, it } from 'vitest';
import {
  bounded,
  type LogSink,
  log,
  MAX_LOGGED_BYTES,
  setLogSink,
} from '../../functions/shared/log.js';

let previous: LogSink | undefined;

afterEach(() => {
  if (previous !== undefined) setLogSink(previous);
  previous = undefined;
});

describe('bounded', () => {
  it('keeps a value of at most 256 bytes as it is', () => {
    for (const value of ['', 'orders', 'x'.repeat(256), 'é'.repeat(128), '😀'.repeat(64)]) {
      expect(bounded(value)).toBe(value);
    }
  });

  it.each([
    ['ASCII', 'q'.repeat(1024 * 1024)],
    ['two-byte characters', 'é'.repeat(1000)],
    ['three-byte characters', '€'.repeat(300)],
    ['four-byte characters', '😀'.repeat(100)],
    ['mixed widths', 'a€😀é'.repeat(200)],
    ['one byte over', 'y'.repeat(257)],
  ])('cuts %s at a character boundary, marked, within 256 bytes', (_what, value) => {
    const logged = bounded(value);
    expect(Buffer.byteLength(logged)).toBeLessThanOrEqual(MAX_LOGGED_BYTES);
    const match = /^([\s\S]*)…\[(\d+) more bytes\]$/u.exec(logged);
    expect(match).not.toBeNull();
    const [, head = '', more = ''] = match ?? [];
    expect(value.startsWith(head)).toBe(true);
    expect(head).not.toContain('\uFFFD');
    expect(Buffer.byteLength(head) + Number(more)).toBe(Buffer.byteLength(value));
  });
});

describe('log', () => {
  it('writes every string field, name and message within the bound', () => {
    const lines: string[] = [];
    previous = setLogSink((line) => lines.push(line), 'debug');
    const long = 'q'.repeat(1024 * 1024);
    log('info', long, { queue: long, [long]: 1, count: 3 }, { Outcome: long });
    expect(lines).toHaveLength(1);
    const line = lines[0] as string;
    expect(line.length).toBeLessThan(2048);
    const record = JSON.parse(line) as Record<string, unknown>;
    for (const [name, value] of Object.entries(record)) {
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(MAX_LOGGED_BYTES);
      if (typeof value === 'string') {
        expect(Buffer.byteLength(value)).toBeLessThanOrEqual(MAX_LOGGED_BYTES);
      }
    }
    expect(record.count).toBe(3);
    expect(String(record.queue)).toMatch(/^q+…\[\d+ more bytes\]$/);
  });
});
