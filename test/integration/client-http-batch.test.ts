// The producer client's batches against the real HTTP function (its built bundle in a process
// of its own) on a real Valkey, behind each front it is deployed behind (client-http.test.ts
// says which): order, duplicates, refusals, 503s whose writes land late, and a batch larger
// than one request, split by size. Each front also answers a path it does not route as the
// deployed one does. Each test ends by counting the jobs in Valkey. Behind these fronts a
// command that outlasts 300 ms answers 503, which a loaded machine can cause on any request:
// the tests assert outcomes, rows and what each request carried, never how many requests
// load made a batch take.
import { describe, expect, it } from 'vitest';
import { type EmqClientError, MAX_BATCH_BYTES } from '../../client/index.js';
import { readJob } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import {
  type Answered,
  describeBehindEachFront,
  expectRetriedUntil,
} from '../support/client-fronts.js';
import { randomQueue } from '../support/servers.js';

/** A batch item as the client sends it. */
interface JobItem {
  readonly payload: string;
  readonly idempotencyKey?: string;
  readonly id?: string;
}

/**
 * What `count` new jobs of one batch call are reported as: `enqueued` when its one request was
 * answered at once; after a 503 (a loaded machine answers some) either, as a job the earlier
 * request wrote comes back `duplicate`.
 */
function admitted(statuses: readonly Answered[], count: number): unknown[] {
  const either = expect.stringMatching(/^(enqueued|duplicate)$/);
  return Array(count).fill(statuses.includes(503) ? either : 'enqueued');
}

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
      // Each request at most 6 MiB; only 503s were retried (a loaded machine answers some).
      expect(sent.filter(({ bytes }) => bytes === 0 || bytes > MAX_BATCH_BYTES)).toEqual([]);
      expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
      // 300 outcomes in input order, each its job: a new one, or (after a 503) the one its
      // earlier request wrote.
      expect(outcomes).toHaveLength(300);
      expect(outcomes.filter((outcome) => outcome.id === undefined || outcome.error)).toEqual([]);
      if (!statuses.includes(503)) {
        expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(300).fill('enqueued'));
      }
      const ids = outcomes.map((outcome) => outcome.id ?? '');
      expect(new Set(ids).size).toBe(300);
      // 300 rows, one per job.
      expect(await jobCount(queue)).toEqual({ rows: [...ids].sort(), pending: [...ids].sort() });
      // A request sent again keeps its jobs' keys: each key names one job, whichever request
      // carried it, and every job had one.
      const jobOfKey = new Map<string, string>();
      for (const { text } of sent) {
        for (const item of (JSON.parse(text) as { jobs: JobItem[] }).jobs) {
          const key = item.idempotencyKey ?? item.id ?? '';
          const job = item.payload.split(':')[0] ?? '';
          expect(jobOfKey.get(key) ?? job, `key ${key}`).toBe(job);
          jobOfKey.set(key, job);
        }
      }
      expect(jobOfKey.size).toBe(300);
      const rows = await Promise.all(ids.map((id) => readJob(suite.reader, queue, id)));
      expect(rows.map((row) => row?.payload.toString().split(':')[0])).toEqual(
        jobs.map((_, index) => String(index)),
      );
    });

    it('answers in input order; keyed and id jobs sent again are duplicates', async () => {
      const queue = randomQueue('client-batch');
      const { client, statuses } = recordingClient();
      const id = mintId();
      const jobs = [
        { payload: 'text, no key' },
        { payload: Uint8Array.from([1, 2, 255]), idempotencyKey: 'batch-key' },
        { payload: 'mine', id },
      ];
      const first = await client.enqueueBatch(queue, jobs);
      expect(first.map((outcome) => outcome.status)).toEqual(admitted(statuses, 3));
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
      const { client, statuses } = recordingClient();
      const id = mintId();
      await client.enqueue(queue, 'first', { id });
      statuses.splice(0);
      const outcomes = await client.enqueueBatch(queue, [
        { payload: 'a' },
        { payload: 'second', id },
        { payload: 'b' },
      ]);
      const [admittedAs] = admitted(statuses, 1);
      expect(outcomes[0]?.status).toEqual(admittedAs);
      expect(outcomes[1]?.error).toMatchObject({
        code: 'EMQ_CONFLICT',
        status: 409,
        retryable: false,
      });
      expect(outcomes[2]?.status).toEqual(admittedAs);
      const ids = [id, outcomes[0]?.id ?? '', outcomes[2]?.id ?? ''];
      expect(await jobCount(queue)).toEqual({ rows: [...ids].sort(), pending: [...ids].sort() });
    });

    it('retried after a 503 whose writes landed late (CLIENT PAUSE WRITE) makes each job once', async () => {
      const queue = randomQueue('client-batch-503');
      await whilePaused(queue, async ({ client, statuses }) => {
        const jobs = [{ payload: 'x' }, { payload: 'y', idempotencyKey: 'y' }];
        // whilePaused's warm-up read ends at its 404; the batch's requests follow it.
        const warmUp = statuses.indexOf(404);
        const outcomes = await client.enqueueBatch(queue, jobs);
        const answers = statuses.slice(warmUp + 1);
        // The held writes answered 503 first (the pause ends only then); a retry admitted them.
        expect(answers[0]).toBe(503);
        expectRetriedUntil(answers, [200]);
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
