// The producer client's batches against the real HTTP function (its built bundle in a process
// of its own) on a real Valkey, behind each front it is deployed behind (client-http.test.ts
// says which): order, duplicates, refusals, 503s whose writes land late, and a batch larger
// than one request, split by size. Each front also answers a path it does not route as the
// deployed one does. Each test ends by counting the jobs in Valkey.
import { describe, expect, it } from 'vitest';
import { type EmqClientError, MAX_BATCH_BYTES } from '../../client/index.js';
import { readJob } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import { describeBehindEachFront } from '../support/client-fronts.js';
import { randomQueue } from '../support/servers.js';

describeBehindEachFront((suite, front) => {
  const { recordingClient, jobCount, whilePaused } = suite;

  describe('the front', () => {
    it('answers a path the deployed front does not route as it does: 404 before the function', async () => {
      const { origin, pathname } = new URL(suite.face.url);
      const stage = pathname === '/' ? '' : pathname;
      const unrouted = [
        `${origin}${stage}//queues/q/jobs`,
        `${origin}${stage}/queues/q/jobs/`,
        ...(stage === '' ? [`${origin}/prod/queues/q/jobs`] : [`${origin}/queues/q/jobs`]),
      ];
      for (const url of unrouted) {
        const response = await fetch(url, { method: 'POST', body: 'x' });
        if (front.kind === 'url') {
          // A Function URL hands every path to the function, which answers it itself.
          expect(response.headers.get('x-request-id'), url).not.toBeNull();
        } else {
          expect(response.status, url).toBe(404);
          expect(await response.json()).toEqual({ message: 'Not Found' });
          expect(response.headers.get('x-request-id')).toBeNull();
        }
      }
    });
  });

  describe('enqueueBatch', () => {
    it('sends 300 jobs of 30 KB (9 MB) as requests of at most 6 MiB, and answers in input order', async () => {
      const queue = randomQueue('client-batch-9mb');
      const { client, sent, statuses } = recordingClient();
      const jobs = Array.from({ length: 300 }, (_, index) => ({
        payload: `${index}:`.padEnd(30_000, 'x'),
      }));
      const outcomes = await client.enqueueBatch(queue, jobs);
      expect(statuses).toEqual([200, 200]);
      expect(sent.every(({ bytes }) => bytes > 0 && bytes <= MAX_BATCH_BYTES)).toBe(true);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(300).fill('enqueued'));
      const ids = outcomes.map((outcome) => outcome.id ?? '');
      expect(await jobCount(queue)).toEqual({ rows: [...ids].sort(), pending: [...ids].sort() });
      const rows = await Promise.all(ids.map((id) => readJob(suite.reader, queue, id)));
      expect(rows.map((row) => row?.payload.toString().split(':')[0])).toEqual(
        jobs.map((_, index) => String(index)),
      );
    });

    it('answers in input order; keyed and id jobs sent again are duplicates', async () => {
      const queue = randomQueue('client-batch');
      const { client } = recordingClient();
      const id = mintId();
      const jobs = [
        { payload: 'text, no key' },
        { payload: Uint8Array.from([1, 2, 255]), idempotencyKey: 'batch-key' },
        { payload: 'mine', id },
      ];
      const first = await client.enqueueBatch(queue, jobs);
      expect(first.map((outcome) => outcome.status)).toEqual(['enqueued', 'enqueued', 'enqueued']);
      expect(first[2]?.id).toBe(id);
      const again = await client.enqueueBatch(queue, jobs.slice(1));
      expect(again).toEqual([
        { id: first[1]?.id, status: 'duplicate' },
        { id, status: 'duplicate' },
      ]);
      const ids = first.map((outcome) => outcome.id ?? '');
      expect(await jobCount(queue)).toEqual({ rows: [...ids].sort(), pending: [...ids].sort() });
      expect((await readJob(suite.reader, queue, ids[1] ?? ''))?.payload).toEqual(
        Buffer.from([1, 2, 255]),
      );
    });

    it('keeps a refused job in its place and the others admitted', async () => {
      const queue = randomQueue('client-batch-conflict');
      const { client } = recordingClient();
      const id = mintId();
      await client.enqueue(queue, 'first', { id });
      const outcomes = await client.enqueueBatch(queue, [
        { payload: 'a' },
        { payload: 'second', id },
        { payload: 'b' },
      ]);
      expect(outcomes[0]?.status).toBe('enqueued');
      expect(outcomes[1]?.error).toMatchObject({
        code: 'EMQ_CONFLICT',
        status: 409,
        retryable: false,
      });
      expect(outcomes[2]?.status).toBe('enqueued');
      const ids = [id, outcomes[0]?.id ?? '', outcomes[2]?.id ?? ''];
      expect(await jobCount(queue)).toEqual({ rows: [...ids].sort(), pending: [...ids].sort() });
    });

    it('retried after a 503 whose writes landed late (CLIENT PAUSE WRITE) makes each job once', async () => {
      const queue = randomQueue('client-batch-503');
      await whilePaused(queue, async ({ client, statuses }) => {
        const jobs = [{ payload: 'x' }, { payload: 'y', idempotencyKey: 'y' }];
        const outcomes = await client.enqueueBatch(queue, jobs);
        expect(statuses).toEqual([404, 503, 200]);
        expect(
          outcomes.every((outcome) => outcome.id !== undefined && outcome.error === undefined),
        ).toBe(true);
        const ids = outcomes.map((outcome) => outcome.id ?? '');
        expect(await jobCount(queue)).toEqual({ rows: [...ids].sort(), pending: [...ids].sort() });
      });
    });

    it('throws a refusal of the whole request at once, naming the jobs at fault; nothing is written', async () => {
      const queue = randomQueue('client-batch-400');
      // Told of a larger cap than the service's, the client sends the job, and the service refuses.
      const { client, statuses } = recordingClient({ maxPayloadBytes: 1_048_576 });
      const refused = await client
        .enqueueBatch(queue, [{ payload: 'fine' }, { payload: 'x'.repeat(300_000) }])
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({
        code: 'EMQ_PAYLOAD_TOO_LARGE',
        status: 413,
        retryable: false,
      });
      expect((refused as EmqClientError).items).toEqual([
        expect.objectContaining({ index: 1, code: 'EMQ_PAYLOAD_TOO_LARGE' }),
      ]);
      expect(statuses).toEqual([413]);
      expect(await jobCount(queue)).toEqual({ rows: [], pending: [] });
    });
  });
});
