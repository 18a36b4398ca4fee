import { describe, expect, it } from 'vitest';
import { createIdMinter, isJobId, jobIdAt, jobIdTime, mintId } from '../../src/keyspace/ids.js';

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);

describe('minted ids', () => {
  it('have the JOB + 11 base62 shape', () => {
    const id = mintId();
    expect(id).toMatch(/^JOB[0-9A-Za-z]{11}$/);
    expect(isJobId(id)).toBe(true);
  });

  it('carry the time they were minted', () => {
    const id = createIdMinter(() => T0).mint();
    expect(jobIdTime(id).getTime()).toBe(T0);
  });

  it('strictly increase over 1,000,000 mints in one process', () => {
    const minter = createIdMinter();
    let previous = minter.mint();
    let ordered = true;
    for (let i = 0; i < 1_000_000; i++) {
      const next = minter.mint();
      if (!(next > previous)) ordered = false;
      previous = next;
    }
    expect(ordered).toBe(true);
  });

  it('keep increasing when the clock steps back', () => {
    let now = T0;
    const minter = createIdMinter(() => now);
    const before = minter.mint();
    now = T0 - 60_000;
    const after = minter.mint();
    expect(after > before).toBe(true);
    expect(jobIdTime(after).getTime()).toBe(T0);
  });

  it('borrow the next millisecond when one millisecond runs out of low bits', () => {
    const minter = createIdMinter(() => T0);
    let previous = '';
    // 2^22 + 1 mints in one frozen millisecond must overflow at least once.
    for (let i = 0; i <= 2 ** 22; i++) {
      const id = minter.mint();
      if (!(id > previous)) throw new Error(`not increasing at mint ${i}`);
      previous = id;
    }
    // Each new millisecond starts its low bits at random, so the run may borrow more than once.
    expect(jobIdTime(previous).getTime()).toBeGreaterThan(T0);
  });
});

describe('derived ids', () => {
  it('place the time in the high bits and the given value in the low 22 bits', () => {
    const a = jobIdAt(T0, 0);
    const b = jobIdAt(T0, 2 ** 22 - 1);
    const c = jobIdAt(T0 + 1, 0);
    expect(a < b && b < c).toBe(true);
    expect(jobIdTime(b).getTime()).toBe(T0);
  });
});

describe('decoding', () => {
  it("reads the seed's sample JOB0KHTOWnGLuC as 2026-01-27T15:11:37.641Z", () => {
    expect(jobIdTime('JOB0KHTOWnGLuC').toISOString()).toBe('2026-01-27T15:11:37.641Z');
  });

  it('round-trips the sample through the encoder', () => {
    expect(jobIdAt(Date.parse('2026-01-27T15:11:37.641Z'), 0)).toBe('JOB0KHTOWnGLuC');
  });

  it('encodes the largest value as the largest id', () => {
    expect(jobIdAt(Date.UTC(2024, 0, 1) + 2 ** 42 - 1, 2 ** 22 - 1)).toBe('JOBLygHa16AHYF');
  });
});
