// The invocation's deadline (functions/shared/deadline.ts): the work's answer while it is in
// time, the deadline's answer once it is not, and a failure of either passed on as it is.
import { describe, expect, it } from 'vitest';
import { answerBy, deadlineOf } from '../../functions/shared/deadline.js';

/** Work that never answers, as a write whose reply never comes. */
const never = new Promise<string>(() => {});

describe('deadlineOf', () => {
  it("is the context's remaining time, less the margin, from now", () => {
    const before = Date.now();
    const deadline = deadlineOf({ getRemainingTimeInMillis: () => 10_000 }, 250);
    const after = Date.now();
    expect(deadline).toBeGreaterThanOrEqual(before + 9_750);
    expect(deadline).toBeLessThanOrEqual(after + 9_750);
  });
});

describe('answerBy', () => {
  it("answers the work's answer when it comes first", async () => {
    let late = false;
    const answer = await answerBy(Date.now() + 60_000, Promise.resolve('served'), () => {
      late = true;
      return 'late';
    });
    expect(answer).toBe('served');
    expect(late).toBe(false);
  });

  it("answers the deadline's answer when the work is still running at it", async () => {
    expect(await answerBy(Date.now() + 20, never, () => 'late')).toBe('late');
  });

  it('answers at once when the deadline has passed', async () => {
    expect(await answerBy(Date.now() - 1_000, never, () => 'late')).toBe('late');
  });

  it("passes on the work's failure, and what the deadline's answer throws", async () => {
    await expect(
      answerBy(Date.now() + 60_000, Promise.reject(new Error('work failed')), () => 'late'),
    ).rejects.toThrow('work failed');
    await expect(
      answerBy(Date.now() + 20, never, () => {
        throw new Error('out of time');
      }),
    ).rejects.toThrow('out of time');
  });
});
