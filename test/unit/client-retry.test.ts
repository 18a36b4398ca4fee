// The client's retry budget and its reading of answers, as pure functions: the wait honours
// Retry-After up to the cap, with jitter; a problem's fields are read defensively; an answer
// that is not the service's is classified by its status.
import { describe, expect, it } from 'vitest';
import { answerError, retryAfterMs } from '../../client/answers.js';
import { EmqClientError } from '../../client/errors.js';
import { delayBefore, RETRY_DEFAULTS, retrying, retryPolicy } from '../../client/retry.js';

const answer = (status: number, body: unknown, retryAfter?: number) => ({
  status,
  requestId: 'req-1',
  retryAfterMs: retryAfter,
  body,
});

describe('delayBefore', () => {
  const at = (random: number) => retryPolicy({ baseDelayMs: 100, maxDelayMs: 5_000 }, () => random);

  it('waits at least Retry-After, plus a random share of the backoff', () => {
    expect(delayBefore(at(0), 1, 1_000)).toBe(1_000);
    expect(delayBefore(at(0.5), 1, 1_000)).toBe(1_050);
    expect(delayBefore(at(0.5), 3, 1_000)).toBe(1_200);
  });

  it('without Retry-After, jitters the whole exponential backoff', () => {
    expect(delayBefore(at(0), 4)).toBe(0);
    expect(delayBefore(at(0.999), 4)).toBeCloseTo(799.2);
  });

  it('never waits more than maxDelayMs, whatever the answer asked', () => {
    expect(delayBefore(at(0.9), 1, 3_600_000)).toBe(5_000);
    // The backoff itself stops growing at the cap; the jitter is a share of it.
    expect(delayBefore(at(0.9), 30)).toBe(4_500);
  });
});

describe('retryPolicy', () => {
  it('fills the defaults and refuses a value out of bounds, naming it', () => {
    expect(retryPolicy({ attempts: 2 })).toMatchObject({ ...RETRY_DEFAULTS, attempts: 2 });
    expect(() => retryPolicy({ attempts: 0 })).toThrow(
      'retry.attempts must be a number of at least 1 (got 0).',
    );
    expect(() => retryPolicy({ maxDelayMs: Number.NaN })).toThrow('retry.maxDelayMs');
  });
});

describe('retrying', () => {
  const policy = retryPolicy({ attempts: 3, baseDelayMs: 0, maxDelayMs: 0 });
  const unavailable = () =>
    answerError(
      answer(503, { code: 'EMQ_UNAVAILABLE', detail: 'Retry.', retryable: true }, 0),
      'Enqueue',
    );

  it('sends again after a retryable error, and stops at the attempts with the count and key', async () => {
    let sent = 0;
    const error = await retrying(
      policy,
      async () => {
        sent += 1;
        throw unavailable();
      },
      'key-1',
    ).catch((thrown: unknown) => thrown);
    expect(sent).toBe(3);
    expect(error).toMatchObject({ code: 'EMQ_UNAVAILABLE', attempts: 3, idempotencyKey: 'key-1' });
    expect((error as Error).message).toBe(
      'Enqueue: Retry. Gave up after 3 attempts. Send it again with idempotencyKey "key-1": it is admitted at most once.',
    );
  });

  it('throws a refusal at once', async () => {
    let sent = 0;
    const error = await retrying(
      policy,
      async () => {
        sent += 1;
        throw answerError(
          answer(409, { code: 'EMQ_CONFLICT', detail: 'Taken.', retryable: false }),
          'Enqueue',
        );
      },
      undefined,
    ).catch((thrown: unknown) => thrown);
    expect(sent).toBe(1);
    expect(error).toMatchObject({
      code: 'EMQ_CONFLICT',
      status: 409,
      retryable: false,
      attempts: 1,
    });
  });

  it('starts no retry past the deadline', async () => {
    let sent = 0;
    const slow = retryPolicy({ attempts: 10, deadlineMs: 50, baseDelayMs: 0, maxDelayMs: 1_000 });
    const error = await retrying(
      slow,
      async () => {
        sent += 1;
        throw answerError(
          answer(503, { code: 'EMQ_PAUSED', detail: 'Paused.', retryable: true }, 1_000),
          'x',
        );
      },
      undefined,
    ).catch((thrown: unknown) => thrown);
    expect(sent).toBe(1);
    expect(error).toBeInstanceOf(EmqClientError);
  });
});

describe('answerError', () => {
  it("reads the service's problem, with the id and what may have been written", () => {
    const error = answerError(
      answer(
        503,
        {
          code: 'EMQ_UNCONFIRMED',
          detail: 'Not confirmed.',
          retryable: true,
          id: 'JOB0KHTOWnGLuC',
          written: 'yes',
          advice: { method: 'PUT' },
        },
        1_000,
      ),
      'Enqueue to queue q',
    );
    expect(error).toMatchObject({
      code: 'EMQ_UNCONFIRMED',
      status: 503,
      retryable: true,
      requestId: 'req-1',
      id: 'JOB0KHTOWnGLuC',
      written: 'yes',
      retryAfterMs: 1_000,
    });
    expect(error.message).toBe('Enqueue to queue q: Not confirmed.');
  });

  it('ignores members of the wrong type', () => {
    const error = answerError(
      answer(503, {
        code: 'EMQ_UNAVAILABLE',
        detail: 'Retry.',
        retryable: 'yes',
        id: 7,
        written: 'perhaps',
      }),
      'x',
    );
    expect(error).toMatchObject({ retryable: true, id: undefined, written: undefined });
  });

  it.each([
    [403, { message: 'Forbidden' }, 'EMQ_ACCESS_DENIED', false],
    [401, { message: 'Unauthorized' }, 'EMQ_ACCESS_DENIED', false],
    [429, { message: 'Too Many Requests' }, 'EMQ_UNAVAILABLE', true],
    [502, { message: 'Internal server error' }, 'EMQ_UNAVAILABLE', true],
    [504, undefined, 'EMQ_UNAVAILABLE', true],
    [404, { message: 'Not Found' }, 'EMQ_UNEXPECTED_RESPONSE', false],
    [500, 'not json', 'EMQ_UNEXPECTED_RESPONSE', false],
  ] as const)('classifies a %i without a problem body', (status, body, code, retryable) => {
    const error = answerError(answer(status, body), 'Enqueue');
    expect(error).toMatchObject({ code, status, retryable });
    expect(error.message).toMatch(new RegExp(`^Enqueue: HTTP ${status}`));
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(retryAfterMs('2', now)).toBe(2_000);
    expect(retryAfterMs(new Date(now + 3_000).toUTCString(), now)).toBe(3_000);
    expect(retryAfterMs(new Date(now - 3_000).toUTCString(), now)).toBe(0);
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
  });
});
