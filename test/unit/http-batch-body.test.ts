// The batch body of SPEC §8a, checked as a whole before any I/O: the shapes refused, the
// items named, and the keys each item is admitted under.
import { describe, expect, it } from 'vitest';
import { BatchRefusal, MAX_BATCH_JOBS, parseBatch } from '../../functions/http/batch-body.js';
import { InvalidInputError, jobIdAt, mintJobId } from '../../src/index.js';

const REQUEST_ID = '0f4c2e8a-5b1d-4c3e-9a7f-0000000000bb';
const LIMITS = { maxPayloadBytes: 16, callerIdMaxAgeMs: 86_400_000, nowMs: Date.now() };

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const parse = (value: unknown) => parseBatch('orders', json(value), REQUEST_ID, LIMITS);

function refusal(fn: () => unknown): InvalidInputError {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('parseBatch', () => {
  it('keys each item: its id, its idempotencyKey (http), else the invocation (call)', () => {
    const id = mintJobId();
    const requests = parse({
      jobs: [
        { payload: 'a', id },
        { payload: 'b', idempotencyKey: 'order-1' },
        { payload: 'AP8=', encoding: 'base64' },
        { payload: 'd', encoding: 'utf8' },
      ],
    });
    expect(requests).toEqual([
      { queue: 'orders', payload: Buffer.from('a'), id },
      {
        queue: 'orders',
        payload: Buffer.from('b'),
        idempotencyKey: 'order-1',
        keyNamespace: 'http',
      },
      {
        queue: 'orders',
        payload: Buffer.from([0x00, 0xff]),
        idempotencyKey: `${REQUEST_ID}:2`,
        keyNamespace: 'call',
      },
      {
        queue: 'orders',
        payload: Buffer.from('d'),
        idempotencyKey: `${REQUEST_ID}:3`,
        keyNamespace: 'call',
      },
    ]);
  });

  it.each([
    ['not JSON', Buffer.from('{jobs:')],
    ['an array', json([{ payload: 'a' }])],
    ['no jobs', json({})],
    ['jobs not an array', json({ jobs: { payload: 'a' } })],
    ['an extra top-level field', json({ jobs: [{ payload: 'a' }], queue: 'x' })],
    ['zero jobs', json({ jobs: [] })],
    [
      'too many jobs',
      json({ jobs: Array.from({ length: MAX_BATCH_JOBS + 1 }, () => ({ payload: 'a' })) }),
    ],
  ])('refuses a body that is %s', (_, body) => {
    expect(refusal(() => parseBatch('orders', body, REQUEST_ID, LIMITS)).code).toBe(
      'EMQ_INVALID_REQUEST',
    );
  });

  it('accepts exactly the item limit', () => {
    const jobs = Array.from({ length: MAX_BATCH_JOBS }, (_, index) => ({ payload: String(index) }));
    expect(parse({ jobs })).toHaveLength(MAX_BATCH_JOBS);
  });

  it('refuses the whole batch for one bad item, naming every item at fault', () => {
    const error = refusal(() =>
      parse({
        jobs: [
          { payload: 'ok' },
          { payload: 'x', id: 'order-1001' },
          { payload: 42 },
          { payload: '***', encoding: 'base64' },
          { payload: 'x', id: mintJobId(), idempotencyKey: 'k' },
          { payload: 'x', extra: true },
          { payload: 'x', encoding: 'hex' },
          { payload: 'x', id: jobIdAt(Date.now() - 2 * 86_400_000, 1) },
        ],
      }),
    );
    expect(error).toBeInstanceOf(BatchRefusal);
    expect(error.status).toBe(400);
    expect((error as BatchRefusal).items.map((item) => [item.index, item.code])).toEqual([
      [1, 'EMQ_INVALID_ID'],
      [2, 'EMQ_INVALID_REQUEST'],
      [3, 'EMQ_INVALID_REQUEST'],
      [4, 'EMQ_INVALID_REQUEST'],
      [5, 'EMQ_INVALID_REQUEST'],
      [6, 'EMQ_INVALID_REQUEST'],
      [7, 'EMQ_INVALID_ID'],
    ]);
    expect(error.message).toMatch(/7 of 8 jobs are invalid.*nothing was written/);
  });

  it('answers 413 when only payload sizes are at fault', () => {
    const error = refusal(() => parse({ jobs: [{ payload: 'x'.repeat(17) }, { payload: 'ok' }] }));
    expect(error.code).toBe('EMQ_PAYLOAD_TOO_LARGE');
    expect(error.status).toBe(413);
  });

  it('refuses an invalid queue for every item', () => {
    const error = refusal(() =>
      parseBatch('..', json({ jobs: [{ payload: 'a' }] }), REQUEST_ID, LIMITS),
    );
    expect((error as BatchRefusal).items[0]?.code).toBe('EMQ_INVALID_QUEUE');
  });
});
