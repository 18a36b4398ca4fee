// A batch of any size as requests the service takes (docs/client.md, "EchoMqClient"): at most 1,000
// jobs and 6 MiB of body each, measured as sent (JSON escaping and the base64 of bytes included),
// in input order, each job's key kept on its retries. A request is filled up to what its body
// takes of the Lambda event (a JSON string there, escaped once more, beside headers and
// context, all within 6 MiB). An item too large alone is refused before anything is sent.
import { describe, expect, it } from 'vitest';
import {
  batchBody,
  bodyBytes,
  EVENT_BODY_BYTES,
  eventBodyBytes,
  requestRanges,
  type SerializedItem,
  serialized,
} from '../../client/batch-split.js';
import type { BatchItem } from '../../client/contract.js';
import {
  EchoMqClient,
  EmqClientError,
  MAX_BATCH_BYTES,
  MAX_BATCH_JOBS,
} from '../../client/index.js';
import { mintId } from '../../src/keyspace/ids.js';

type Sent = { readonly bytes: number; readonly eventBytes: number; readonly items: BatchItem[] };

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
      const text = Buffer.from(body).toString('utf8');
      const items = (JSON.parse(text) as { jobs: BatchItem[] }).jobs;
      // The body as a Lambda event holds it: a JSON string, without its two quotes.
      const eventBytes = Buffer.byteLength(JSON.stringify(text)) - 2;
      sent.push({ bytes: body.byteLength, eventBytes, items });
      const answer = options.answer?.(items, sent.length) ?? {
        queue: 'orders',
        results: items.map(() => ({ id: mintId(), status: 'enqueued' })),
      };
      return new Response(JSON.stringify(answer), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    },
  });
  return { client, sent };
}

/** An item whose body alone takes exactly `bytes` of its event. */
function itemOfEvent(bytes: number): SerializedItem {
  const bare = eventBodyBytes([serialized({ payload: '', idempotencyKey: 'k' })]);
  return serialized({ payload: 'a'.repeat(bytes - bare), idempotencyKey: 'k' });
}

/** Every request within both limits, and each but the last unable to take the next item. */
function expectFull(sent: readonly Sent[], items: readonly SerializedItem[]): void {
  let next = 0;
  sent.forEach(({ bytes, eventBytes, items: held }, request) => {
    expect(bytes).toBeLessThanOrEqual(MAX_BATCH_BYTES);
    expect(eventBytes).toBe(eventBodyBytes(items.slice(next, next + held.length)));
    expect(eventBytes).toBeLessThanOrEqual(EVENT_BODY_BYTES);
    next += held.length;
    if (request < sent.length - 1) {
      expect(eventBodyBytes(items.slice(next - held.length, next + 1))).toBeGreaterThan(
        EVENT_BODY_BYTES,
      );
    }
  });
  expect(next).toBe(items.length);
}

describe('requestRanges', () => {
  it('fills a request to exactly its share of the event, and starts another at one byte more', () => {
    const exact = itemOfEvent(EVENT_BODY_BYTES);
    expect(eventBodyBytes([exact])).toBe(EVENT_BODY_BYTES);
    expect(bodyBytes([exact])).toBeLessThanOrEqual(MAX_BATCH_BYTES);
    expect(batchBody([exact]).byteLength).toBe(bodyBytes([exact]));
    expect(requestRanges([exact])).toEqual([[0, 1]]);

    // Two items whose event body together is exactly the limit: one request; one byte more: two.
    const first = itemOfEvent(1_000_000);
    // The pair's size grows by one with each byte of the second item's payload.
    const extra = 100 + EVENT_BODY_BYTES - eventBodyBytes([first, itemOfEvent(100)]);
    const pair = [first, itemOfEvent(extra)];
    expect(eventBodyBytes(pair)).toBe(EVENT_BODY_BYTES);
    expect(requestRanges(pair)).toEqual([[0, 2]]);
    const over = [first, itemOfEvent(extra + 1)];
    expect(eventBodyBytes(over)).toBe(EVENT_BODY_BYTES + 1);
    expect(requestRanges(over)).toEqual([
      [0, 1],
      [1, 2],
    ]);
  });

  it('counts the body as the event holds it: each quote and backslash once more', () => {
    const item = serialized({ payload: '"\\x', idempotencyKey: 'k' });
    // {"payload":"\"\\x","idempotencyKey":"k"}: 40 bytes, 12 of them quotes and backslashes.
    expect(item.json).toBe('{"payload":"\\"\\\\x","idempotencyKey":"k"}');
    expect(item.bytes).toBe(40);
    expect(item.eventBytes).toBe(52);
    expect(item.eventBytes).toBe(Buffer.byteLength(JSON.stringify(item.json)) - 2);
  });

  it('refuses an item whose body alone is over the limit, naming it', () => {
    const items = [serialized({ payload: 'x' }), itemOfEvent(EVENT_BODY_BYTES + 1)];
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
    // Each payload is 30,000 bytes, 90,000 as JSON text and 135,000 in the event: counted raw,
    // 9 MB would go in two requests of 13.5 MB of body; as the event holds them, 46 fill one.
    const payload = '"\\\u0001\n'.repeat(7_500);
    const { client, sent } = recording();
    const outcomes = await client.enqueueBatch(
      'orders',
      Array.from({ length: 300 }, (_, index) => ({ payload, idempotencyKey: `k${index}` })),
    );
    expectFull(
      sent,
      sent.flatMap(({ items }) => items.map(serialized)),
    );
    expect(sent.map(({ items }) => items.length)).toEqual([46, 46, 46, 46, 46, 46, 24]);
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
    expectFull(
      sent,
      sent.flatMap(({ items }) => items.map(serialized)),
    );
    // 23 items of 266,770 bytes in the event fill the first; the second takes 7 and 21 of text.
    expect(sent.map(({ items }) => items.length)).toEqual([23, 28, 19]);
    expect(sent.flatMap(({ items }) => items.map((item) => item.encoding ?? 'text'))).toEqual([
      ...Array(30).fill('base64'),
      ...Array(40).fill('text'),
    ]);
    expect(outcomes).toHaveLength(70);
  });

  it('keeps the input order and each job key on the retries of a later request', async () => {
    const ids = new Map<string, string>();
    const idOf = (key: string) => ids.get(key) ?? ids.set(key, mintId()).get(key) ?? '';
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
