// The batch's item-level retries, which one Valkey cannot be made to answer (every item of a
// queue goes in one call, so they fail or pass together): a stand-in service answers in the
// contract's own shapes, each answer checked against openapi/openapi.yaml before the client
// reads it. Only the jobs that may pass are sent again, each with its key or id.
import { describe, expect, it } from 'vitest';
import { EchoMqClient } from '../../client/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import { assertMatchesContract } from '../support/openapi.js';

type Item = { payload: string; idempotencyKey?: string; id?: string };

const unavailable = {
  title: 'Service Unavailable',
  status: 503,
  detail: 'Valkey is unavailable right now; retry the request.',
  code: 'EMQ_UNAVAILABLE',
  retryable: true,
};

/** A client whose requests go to `answer`, each answer held to the contract. */
function standIn(answer: (items: Item[], request: number) => unknown) {
  const sent: Item[][] = [];
  const client = new EchoMqClient({
    endpoint: 'http://127.0.0.1:9/',
    credentials: false,
    retry: { attempts: 3, baseDelayMs: 0, maxDelayMs: 0 },
    fetch: async (input, init) => {
      const items = (JSON.parse(String(init?.body)) as { jobs: Item[] }).jobs;
      sent.push(items);
      const body = JSON.stringify(answer(items, sent.length));
      const headers = { 'content-type': 'application/json', 'x-request-id': `r${sent.length}` };
      const path = new URL(String(input)).pathname;
      assertMatchesContract({ method: 'POST', path }, { statusCode: 200, headers, body });
      return new Response(body, { status: 200, headers });
    },
  });
  return { client, sent };
}

describe('enqueueBatch, item by item', () => {
  it('sends again only the jobs that failed retryably, with their keys, and keeps the order', async () => {
    const id = mintId();
    const [ok, retried] = [mintId(), mintId()];
    const { client, sent } = standIn((items, request) => ({
      queue: 'orders',
      results:
        request === 1
          ? [
              { id: ok, status: 'enqueued' },
              { id: retried, error: { ...unavailable, id: retried, written: 'maybe' } },
              {
                error: {
                  title: 'Conflict',
                  status: 409,
                  detail: `Job ${id} already exists in queue orders with a different payload.`,
                  code: 'EMQ_CONFLICT',
                  retryable: false,
                },
              },
            ]
          : items.map(() => ({ id: retried, status: 'duplicate' })),
    }));
    const outcomes = await client.enqueueBatch('orders', [
      { payload: 'a' },
      { payload: 'b', idempotencyKey: 'order-b' },
      { payload: 'c', id },
    ]);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual([{ payload: 'b', idempotencyKey: 'order-b' }]);
    expect(outcomes[0]).toEqual({ id: ok, status: 'enqueued' });
    expect(outcomes[1]).toEqual({ id: retried, status: 'duplicate' });
    expect(outcomes[2]?.error).toMatchObject({
      code: 'EMQ_CONFLICT',
      status: 409,
      retryable: false,
    });
  });

  it('gives a job still failing after the budget its own error, with its key, and the rest their results', async () => {
    const ok = mintId();
    const { client, sent } = standIn((items, request) => ({
      queue: 'orders',
      results: items.map((_, at) =>
        request === 1 && at === 0
          ? { id: ok, status: 'enqueued' }
          : { error: { ...unavailable, written: 'no' } },
      ),
    }));
    const outcomes = await client.enqueueBatch('orders', [{ payload: 'a' }, { payload: 'b' }]);
    expect(sent.map((items) => items.length)).toEqual([2, 1, 1]);
    const key = sent[0]?.[1]?.idempotencyKey;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent.slice(1).map((items) => items[0]?.idempotencyKey)).toEqual([key, key]);
    expect(outcomes[0]).toEqual({ id: ok, status: 'enqueued' });
    expect(outcomes[1]?.error).toMatchObject({
      code: 'EMQ_UNAVAILABLE',
      retryable: true,
      attempts: 3,
      idempotencyKey: key,
      requestId: 'r3',
    });
    expect(outcomes[1]?.error?.message).toContain(`Send it again with idempotencyKey "${key}"`);
  });
});
