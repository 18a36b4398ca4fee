// oneWrite: a report's lines reach stdout in one write (each write(2) into Lambda's stdout pipe
// wakes its reader), the same lines in the same order; a test's sink still gets them one by one.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { log, oneWrite, setLogSink } from '../../functions/shared/log.js';
import { emitMetrics } from '../../functions/shared/metrics.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('oneWrite', () => {
  it('writes every line of the report to stdout in one write, in order', () => {
    const writes: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
    oneWrite(() => {
      log('info', 'first', { n: 1 });
      emitMetrics({ Face: 'sqs' }, [{ name: 'Records', value: 2, unit: 'Count' }]);
      log('warn', 'third');
    });
    expect(writes).toHaveLength(1);
    const lines = (writes[0] as string).split('\n');
    expect(lines.at(-1)).toBe('');
    const records = lines.slice(0, -1).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((record) => record.message ?? record.Records)).toEqual([
      'first',
      2,
      'third',
    ]);
  });

  it('writes nothing for a report that logs nothing, and what was logged before a throw', () => {
    const writes: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
    oneWrite(() => {});
    expect(writes).toHaveLength(0);
    expect(() =>
      oneWrite(() => {
        log('info', 'before');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(writes).toHaveLength(1);
    expect(JSON.parse(writes[0] as string)).toMatchObject({ message: 'before' });
  });

  it("hands a test's sink each line on its own, nested reports included", () => {
    const lines: string[] = [];
    const previous = setLogSink((line) => lines.push(line));
    try {
      oneWrite(() => {
        log('info', 'a');
        oneWrite(() => log('info', 'b'));
        log('info', 'c');
      });
    } finally {
      setLogSink(previous);
    }
    expect(lines.map((line) => (JSON.parse(line) as { message: string }).message)).toEqual([
      'a',
      'b',
      'c',
    ]);
  });
});
