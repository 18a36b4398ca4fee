// What JSON.parse lets through and a batch body must not hold: a member name given twice, a
// lone UTF-16 surrogate. Each is found once, named by its path, whatever escapes spell it.
import { describe, expect, it } from 'vitest';
import { hasLoneSurrogate, jsonFaults } from '../../functions/http/strict-json.js';

const faults = (text: string) => {
  JSON.parse(text);
  return jsonFaults(text);
};

describe('jsonFaults', () => {
  it('finds nothing in a body JSON.parse reads as sent', () => {
    expect(
      faults('{"jobs":[{"payload":"a\\"b\\\\","id":"x"},{"payload":"\\ud83d\\ude00"}]}'),
    ).toEqual([]);
    expect(faults('[1,"two",{"a":{"a":[{"a":1}]}},null]')).toEqual([]);
    // The same name in sibling objects, or nested, is no duplicate.
    expect(faults('{"a":{"b":1},"b":{"a":{"b":2}}}')).toEqual([]);
  });

  it('names a member given twice, by the path of its object, however it is spelt', () => {
    expect(faults('{"jobs":[{"payload":"a"},{"payload":"b","payload":"c"}]}')).toEqual([
      { kind: 'duplicate', path: ['jobs', 1], name: 'payload' },
    ]);
    expect(faults('{"jobs":[],"jo\\u0062s":[]}')).toEqual([
      { kind: 'duplicate', path: [], name: 'jobs' },
    ]);
    expect(faults('{ "a" : 1 , "b" : { "c" : [ 1 , 2 ] } , "a" : 3 }')).toEqual([
      { kind: 'duplicate', path: [], name: 'a' },
    ]);
  });

  it('names a lone surrogate in a value or a member name, by its path', () => {
    expect(
      faults('{"jobs":[{"payload":"\\ud800"},{"payload":"ok","idempotencyKey":"k\\udfff"}]}'),
    ).toEqual([
      { kind: 'surrogate', path: ['jobs', 0, 'payload'] },
      { kind: 'surrogate', path: ['jobs', 1, 'idempotencyKey'] },
    ]);
    expect(faults('{"jobs":[{"\\udbff":1}]}')).toEqual([
      { kind: 'surrogate', path: ['jobs', 0, '\udbff'], name: '\udbff' },
    ]);
    // A high surrogate followed by another high one, and a low one alone, are both lone.
    expect(faults('["\\ud800\\ud800x", "\\ude00"]')).toEqual([
      { kind: 'surrogate', path: [0] },
      { kind: 'surrogate', path: [1] },
    ]);
  });

  it('reads 6 MiB of strings in one pass', () => {
    const text = JSON.stringify({
      jobs: Array.from({ length: 1000 }, (_, index) => ({ payload: `${index}`.padEnd(6000, 'x') })),
    });
    expect(jsonFaults(text)).toEqual([]);
  });
});

describe('hasLoneSurrogate', () => {
  it('tells a lone surrogate from a pair', () => {
    expect(hasLoneSurrogate('a\ud83d\ude00b')).toBe(false);
    expect(hasLoneSurrogate('a\ud83db')).toBe(true);
    expect(hasLoneSurrogate('\ude00')).toBe(true);
    expect(hasLoneSurrogate('plain')).toBe(false);
  });
});
