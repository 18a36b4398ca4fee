// A batch of any size as requests the service takes (SPEC §12a): at most 1,000 jobs and
// 6 MiB of body each, measured as sent (JSON escaping and the base64 of bytes included), in
// input order, each job's key kept on its retries. An item too large alone is refused before
// anything is sent.
import { describe, expect, it } from 'vitest';
import { batchBody, bodyBytes, requestRanges, serialized } from '../../client/batch-split.js';
import type { BatchItem } from '../../client/contract.js';
import {
  EchoMqClient,
  EmqClientError,
  MAX_BATCH_BYTES,
  MAX_BATCH_JOBS,
} from '../../client/index.js';
import { mintJobId } from '../../src/index.js';

type Sent = { readonly bytes: number; readonly items: BatchItem[] };

/** A client whose batch requests are recorded and answered: every item enqueued under a fresh id, or by `answer`. */
function recording(
  options: {
    maxPayloadBytes?: number;
    answer?: (items: BatchItem[], request: number) => unknown;
  } = {},
) {
  const sent: Sent[] = [];
  const client = new EchoMqClient({
    endpoint: 'http://127.0.0.1:9/',
    credentials: false,
    retry: { attempts: 3, baseDelayMs: 0, maxDelayMs: 0 },
    ...(options.maxPayloadBytes === undefined ? {} : { maxPayloadBytes: options.maxPayloadBytes }),
    fetch: async (_, init) => {
      const body = init?.body as Uint8Array;
      const items = (JSON.parse(Buffer.from(body).toString('utf8')) as { jobs: BatchItem[] }).jobs;
      sent.push({ bytes: body.byteLength, items });
      const answer = options.answer?.(items, sent.length) ?? {
        queue: 'orders',
        results: items.map(() => ({ id: mintJobId(), status: 'enqueued' })),
      };
      return new Response(JSON.stringify(answer), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    },
  });
  return { client, sent };
}

/** An item whose body alone is exactly `bytes`. */
function itemOfBody(bytes: number): BatchItem {
  const bare = bodyBytes([serialized({ payload: '', idempotencyKey: 'k' })]);
  return { payload: 'a'.repeat(bytes - bare), idempotencyKey: 'k' };
}

describe('requestRanges', () => {
  it('fills a request to exactly 6 MiB, and starts another at one byte more', () => {
    const exact = serialized(itemOfBody(MAX_BATCH_BYTES));
    expect(batchBody([exact]).byteLength).toBe(MAX_BATCH_BYTES);
    expect(requestRanges([exact])).toEqual([[0, 1]]);

    // Two items whose body together is exactly the limit: one request; one byte more: two.
    // Together, a body holds one envelope (11 bytes) and one comma fewer than two alone do.
    const first = serialized(itemOfBody(1_000_000));
    const pair = [first, serialized(itemOfBody(MAX_BATCH_BYTES - 1_000_000 + 10))];
    expect(batchBody(pair).byteLength).toBe(MAX_BATCH_BYTES);
    expect(requestRanges(pair)).toEqual([[0, 2]]);
    const over = [first, serialized(itemOfBody(MAX_BATCH_BYTES - 1_000_000 + 11))];
    expect(batchBody(over).byteLength).toBe(MAX_BATCH_BYTES + 1);
    expect(requestRanges(over)).toEqual([
      [0, 1],
      [1, 2],
    ]);
  });

  it('refuses an item whose body alone is over the limit, naming it', () => {
    const items = [serialized({ payload: 'x' }), serialized(itemOfBody(MAX_BATCH_BYTES + 1))];
    let refused: unknown;
    try {
      requestRanges(items);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(EmqClientError);
    expect(refused).toMatchObject({ code: 'EMQ_PAYLOAD_TOO_LARGE', status: 413, retryable: false });
    expect((refused as EmqClientError).items).toEqual([
      expect.objectContaining({ index: 1, code: 'EMQ_PAYLOAD_TOO_LARGE' }),
    ]);
  });

  it('splits by count: 1,000 jobs a request', () => {
    const items = Array.from({ length: 2_500 }, () => serialized({ payload: 'x' }));
    expect(requestRanges(items)).toEqual([
      [0, 1_000],
      [1_000, 2_000],
      [2_000, 2_500],
    ]);
    expect(MAX_BATCH_JOBS).toBe(1_000);
  });
});

describe('enqueueBatch, split', () => {
  it('counts JSON escaping: 300 payloads of 30,000 quote, backslash and control characters', async () => {
    // Each payload is 30,000 bytes, 90,000 as JSON text: counted raw, 9 MB would go in two
    // requests of 13.5 MB of body; as sent, 69 items fill a request.
    const payload = '"\\\u0001\n'.repeat(7_500);
    const { client, sent } = recording();
    const outcomes = await client.enqueueBatch(
      'orders',
      Array.from({ length: 300 }, (_, index) => ({ payload, idempotencyKey: `k${index}` })),
    );
    expect(sent.every(({ bytes }) => bytes <= MAX_BATCH_BYTES)).toBe(true);
    expect(sent.map(({ items }) => items.length)).toEqual([69, 69, 69, 69, 24]);
    const keys = sent.flatMap(({ items }) => items.map((item) => item.idempotencyKey));
    expect(keys).toEqual(Array.from({ length: 300 }, (_, index) => `k${index}`));
    expect(sent.flatMap(({ items }) => items.map((item) => item.payload === payload))).toEqual(
      Array(300).fill(true),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(300).fill('enqueued'));
  });

  it('counts bytes as their base64 and text as UTF-8', async () => {
    // 30 x 200,000 bytes is 6,000,000 (under 6 MiB) raw, but 8,000,000 as base64.
    const bytes = new Uint8Array(200_000).fill(0xff);
    const text = 'é'.repeat(100_000); // 100,000 characters, 200,000 bytes
    const { client, sent } = recording();
    const jobs = [
      ...Array.from({ length: 30 }, () => ({ payload: bytes })),
      ...Array.from({ length: 40 }, () => ({ payload: text })),
    ];
    const outcomes = await client.enqueueBatch('orders', jobs);
    expect(sent.every(({ bytes: size }) => size <= MAX_BATCH_BYTES)).toBe(true);
    // 23 items of 266,758 bytes as sent fill the first; the second takes 7 of them and 22 of text.
    expect(sent.map(({ items }) => items.length)).toEqual([23, 29, 18]);
    expect(sent.flatMap(({ items }) => items.map((item) => item.encoding ?? 'text'))).toEqual([
      ...Array(30).fill('base64'),
      ...Array(40).fill('text'),
    ]);
    expect(outcomes).toHaveLength(70);
  });

  it('keeps the input order and each job key on the retries of a later request', async () => {
    const ids = new Map<string, string>();
    const idOf = (key: string) => ids.get(key) ?? ids.set(key, mintJobId()).get(key) ?? '';
    const unavailable = {
      title: 'Service Unavailable',
      status: 503,
      detail: 'Valkey is unavailable right now; retry the request.',
      code: 'EMQ_UNAVAILABLE',
      retryable: true,
      written: 'maybe',
    };
    const { client, sent } = recording({
      // The second request's first answer fails its even items retryably.
      answer: (items, request) => ({
        queue: 'orders',
        results: items.map((item, at) =>
          request === 2 && at % 2 === 0
            ? { id: idOf(item.idempotencyKey ?? ''), error: { ...unavailable } }
            : { id: idOf(item.idempotencyKey ?? ''), status: 'enqueued' },
        ),
      }),
    });
    const jobs = Array.from({ length: 1_004 }, (_, index) => ({ payload: `job ${index}` }));
    const outcomes = await client.enqueueBatch('orders', jobs);
    expect(sent.map(({ items }) => items.length)).toEqual([1_000, 4, 2]);
    const keysOf = (request: number) => sent[request]?.items.map((item) => item.idempotencyKey);
    expect(keysOf(2)).toEqual([keysOf(1)?.[0], keysOf(1)?.[2]]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(1_004).fill('enqueued'));
    const keys = [...(keysOf(0) ?? []), ...(keysOf(1) ?? [])];
    expect(outcomes.map((outcome) => outcome.id)).toEqual(keys.map((key) => idOf(key ?? '')));
  });

  it('refuses a payload over maxPayloadBytes with 413 before anything is sent', async () => {
    const { client, sent } = recording();
    const refused = await client
      .enqueueBatch('orders', [{ payload: 'fine' }, { payload: new Uint8Array(262_145) }])
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'EMQ_PAYLOAD_TOO_LARGE', status: 413, retryable: false });
    expect((refused as EmqClientError).items).toEqual([
      expect.objectContaining({ index: 1, code: 'EMQ_PAYLOAD_TOO_LARGE' }),
    ]);
    await expect(client.enqueue('orders', 'x'.repeat(262_145))).rejects.toMatchObject({
      code: 'EMQ_PAYLOAD_TOO_LARGE',
      status: 413,
    });
    expect(sent).toEqual([]);
    // Raised to the deploy's own cap, the same payload is sent.
    const raised = recording({ maxPayloadBytes: 1_048_576 });
    await raised.client.enqueueBatch('orders', [{ payload: new Uint8Array(262_145) }]);
    expect(raised.sent).toHaveLength(1);
  });
});
