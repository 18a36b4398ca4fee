// The batch body of README.md "The HTTP face", checked as a whole before any I/O: the shapes
// refused here, every item judged by the core, the items at fault named, and the keys each item is
// admitted under.
import { describe, expect, it } from 'vitest';
import {
  BatchRefusal,
  checkedBatch,
  MAX_BATCH_JOBS,
  parseBatch,
} from '../../functions/http/batch-body.js';
import { InvalidInputError } from '../../src/index.js';
import { jobIdAt, mintId } from '../../src/keyspace/ids.js';
import { checkedQueue, recordField } from '../../src/keyspace/keyspace.js';
import { configure } from '../../src/settings/config.js';

const REQUEST_ID = '0f4c2e8a-5b1d-4c3e-9a7f-0000000000bb';
const CONFIG = configure({ maxPayloadBytes: 16 });
/** The path's queue, checked where the face reads it. */
const ORDERS = checkedQueue('orders');

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const check = (value: unknown, body = json(value)) =>
  checkedBatch(ORDERS, body, CONFIG, { id: REQUEST_ID });

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
  it('reads each item: its id, its idempotencyKey (http), its payload decoded', () => {
    const id = mintId();
    expect(
      parseBatch(
        ORDERS,
        json({
          jobs: [
            { payload: 'a', id },
            { payload: 'b', idempotencyKey: 'order-1' },
            { payload: 'AP8=', encoding: 'base64' },
            { payload: 'd', encoding: 'utf8' },
          ],
        }),
      ),
    ).toEqual([
      {
        queue: 'orders',
        payload: Buffer.from('a'),
        id,
        origin: 'http',
        idAdvice: expect.stringMatching(/"idempotencyKey" instead of "id"/),
      },
      { queue: 'orders', payload: Buffer.from('b'), idempotencyKey: 'order-1', origin: 'http' },
      { queue: 'orders', payload: Buffer.from([0x00, 0xff]), origin: 'http' },
      { queue: 'orders', payload: Buffer.from('d'), origin: 'http' },
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
    expect(refusal(() => parseBatch(ORDERS, body)).code).toBe('EMQ_INVALID_REQUEST');
  });

  it('refuses a body that is not UTF-8, naming the items whose bytes are not, and stores nothing changed', () => {
    const body = Buffer.concat([
      Buffer.from('{"jobs":[{"payload":"fine"},{"payload":"bad '),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"},{"payload":"also '),
      Buffer.from([0xc3]),
      Buffer.from('"}]}'),
    ]);
    const error = refusal(() => parseBatch(ORDERS, body));
    expect(error).toBeInstanceOf(BatchRefusal);
    expect(error.status).toBe(400);
    expect((error as BatchRefusal).items.map((item) => item.index)).toEqual([1, 2]);
    expect(error.message).toMatch(/not valid UTF-8.*base64/);
  });
});

describe('checkedBatch', () => {
  it('keys each item: its id (namespace id), its idempotencyKey (http), else the invocation and its index (call)', () => {
    const id = mintId();
    const prepared = check({
      jobs: [{ payload: 'a', id }, { payload: 'b', idempotencyKey: 'order-1' }, { payload: 'c' }],
    });
    expect(prepared.faults).toEqual([]);
    expect(prepared.items.map((item) => item.field)).toEqual([
      recordField('id', id),
      recordField('http', 'order-1'),
      recordField('call', `${REQUEST_ID}:2`),
    ]);
  });

  it('accepts exactly the item limit', () => {
    const jobs = Array.from({ length: MAX_BATCH_JOBS }, (_, index) => ({ payload: String(index) }));
    expect(check({ jobs }).items).toHaveLength(MAX_BATCH_JOBS);
  });

  it("tells each face's caller what to do with a refused id, where it is shown", () => {
    const error = refusal(() => check({ jobs: [{ payload: 'x', id: 'order-1001' }] }));
    expect((error as BatchRefusal).items[0]?.detail).toMatch(
      /give it as "idempotencyKey" instead of "id"/,
    );
    expect((error as BatchRefusal).items[0]?.detail).not.toMatch(
      /Idempotency-Key header\b(?! is refused)/,
    );
  });

  it('refuses the whole batch for one bad item, naming every item at fault', () => {
    const error = refusal(() =>
      check({
        jobs: [
          { payload: 'ok' },
          { payload: 'x', id: 'order-1001' },
          { payload: 42 },
          { payload: '***', encoding: 'base64' },
          { payload: 'x', id: mintId(), idempotencyKey: 'k' },
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

  it('refuses items that share a key or an id with different payloads, naming each of them', () => {
    const id = mintId();
    const error = refusal(() =>
      check({
        jobs: [
          { payload: 'a', idempotencyKey: 'order-1' },
          { payload: 'ok', idempotencyKey: 'order-2' },
          { payload: 'b', idempotencyKey: 'order-1' },
          { payload: 'x', id },
          { payload: 'eA==', encoding: 'base64', id },
          { payload: 'y', id },
          // Another namespace: an id and a key that read the same are two keys.
          { payload: 'c', idempotencyKey: id },
        ],
      }),
    );
    expect(error.status).toBe(400);
    const items = (error as BatchRefusal).items;
    expect(items.map((item) => [item.index, item.code])).toEqual([
      [0, 'EMQ_INVALID_REQUEST'],
      [2, 'EMQ_INVALID_REQUEST'],
      [3, 'EMQ_INVALID_REQUEST'],
      [4, 'EMQ_INVALID_REQUEST'],
      [5, 'EMQ_INVALID_REQUEST'],
    ]);
    expect(items[0]?.detail).toBe(
      'Items 0, 2 share one "idempotencyKey" with different payloads: one idempotencyKey is one job. Give each job its own idempotencyKey, or send the job once.',
    );
    expect(items[2]?.detail).toMatch(/^Items 3, 4, 5 share one "id" with different payloads/);
    expect(error.message).toMatch(/^5 of 7 jobs are invalid \(items: 0, 2, 3, 4, 5\)/);
  });

  it('keeps items that share a key with the same payload, as bytes: the later is a duplicate', () => {
    const prepared = check({
      jobs: [
        { payload: 'x', idempotencyKey: 'order-1' },
        { payload: 'eA==', encoding: 'base64', idempotencyKey: 'order-1' },
      ],
    });
    expect(prepared.faults).toEqual([]);
    expect(prepared.items).toHaveLength(2);
  });

  it('answers 413 when only payload sizes are at fault', () => {
    const error = refusal(() => check({ jobs: [{ payload: 'x'.repeat(17) }, { payload: 'ok' }] }));
    expect(error.code).toBe('EMQ_PAYLOAD_TOO_LARGE');
    expect(error.status).toBe(413);
  });
});
