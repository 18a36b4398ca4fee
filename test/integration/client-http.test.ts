// The producer client against the real HTTP function (its built bundle in a process of its
// own) on a real Valkey, behind each front it is deployed behind: the stack's HTTP API (the
// synthesized template's routes, matched as API Gateway matches them) at its root with and
// without a trailing `/` and under a named stage, and a Function URL. Replays, a 503 in the
// middle of a call (the fence removed, writes paused), a connection dropped after the request
// was sent, refusals. Each test ends by counting the jobs in Valkey: a retry of the client's
// own never makes a second one. Batches: client-http-batch.test.ts. Behind these fronts a
// command that outlasts 300 ms answers 503, which a loaded machine can cause on any request:
// each call's answers are checked as retries the client promises (expectRetriedUntil), never
// as an exact sequence.
import { describe, expect, it } from 'vitest';
import { EmqClientError } from '../../client/index.js';
import { readJob } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import {
  describeBehindEachFront,
  expectAdmitted,
  expectRetriedUntil,
  lossyProxy,
} from '../support/client-fronts.js';
import { randomQueue } from '../support/servers.js';

const FENCE = '{emq}:version';

describeBehindEachFront((suite) => {
  const { recordingClient, jobCount, whilePaused } = suite;

  describe('enqueue', () => {
    it('answers a keyed replay with the same job, and refuses the key with another body at once', async () => {
      const queue = randomQueue('client-replay');
      const { client, statuses } = recordingClient();
      const first = await client.enqueue(queue, 'order 1', { idempotencyKey: 'order-1' });
      const firstAnswers = statuses.splice(0);
      const again = await client.enqueue(queue, 'order 1', { idempotencyKey: 'order-1' });
      const againAnswers = statuses.splice(0);
      expect(first).toEqual({ queue, id: first.id, status: expect.any(String) });
      expectAdmitted(firstAnswers, first);
      expect(again).toEqual({ queue, id: first.id, status: 'duplicate' });
      expectRetriedUntil(againAnswers, [200]);

      const refused = await client
        .enqueue(queue, 'another body', { idempotencyKey: 'order-1' })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(EmqClientError);
      // Thrown at once: the 422 ended the call, and the error counts every request it took.
      expectRetriedUntil(statuses, [422]);
      expect(refused).toMatchObject({
        code: 'EMQ_IDEMPOTENCY_MISMATCH',
        status: 422,
        retryable: false,
        attempts: statuses.length,
      });
      expect((refused as EmqClientError).requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(await jobCount(queue)).toEqual({ rows: [first.id], pending: [first.id] });
    });

    it('admits under a caller id with PUT; another payload under it is a conflict, thrown at once', async () => {
      const queue = randomQueue('client-put');
      const id = mintId();
      const { client, sent, statuses } = recordingClient();
      const first = await client.enqueue(queue, 'mine', { id });
      expect(first).toEqual({ queue, id, status: expect.any(String) });
      expectAdmitted(statuses.splice(0), first);
      expect(await client.enqueue(queue, 'mine', { id })).toEqual({
        queue,
        id,
        status: 'duplicate',
      });
      expectRetriedUntil(statuses.splice(0), [200]);
      await expect(client.enqueue(queue, 'not mine', { id })).rejects.toMatchObject({
        code: 'EMQ_CONFLICT',
        status: 409,
        retryable: false,
      });
      expectRetriedUntil(statuses, [409]);
      expect(sent.filter((request) => request.method !== 'PUT')).toEqual([]);
      expect(await jobCount(queue)).toEqual({ rows: [id], pending: [id] });
    });

    it('refuses a payload over the cap with 413 and a bad queue before any request; the service answers 413 too', async () => {
      const queue = randomQueue('client-413');
      const { client, statuses } = recordingClient();
      await expect(client.enqueue(queue, new Uint8Array(300_000))).rejects.toMatchObject({
        code: 'EMQ_PAYLOAD_TOO_LARGE',
        status: 413,
        retryable: false,
      });
      await expect(client.enqueue('orders:eu', 'x')).rejects.toMatchObject({
        code: 'EMQ_INVALID_QUEUE',
        status: undefined,
      });
      expect(statuses).toEqual([]);
      // A client told of a larger cap than the service's sends it, and the service refuses it.
      const raised = recordingClient({ maxPayloadBytes: 1_048_576 });
      await expect(raised.client.enqueue(queue, new Uint8Array(300_000))).rejects.toMatchObject({
        code: 'EMQ_PAYLOAD_TOO_LARGE',
        status: 413,
        retryable: false,
        attempts: 1,
      });
      expect(raised.statuses).toEqual([413]);
      expect(await jobCount(queue)).toEqual({ rows: [], pending: [] });
    });

    it('reads a job back, bytes as base64, and an unknown job as undefined', async () => {
      const queue = randomQueue('client-get');
      const { client } = recordingClient();
      const bytes = Uint8Array.from([0, 255, 128, 10]);
      const { id } = await client.enqueue(queue, bytes);
      expect(await client.get(queue, id)).toEqual({
        queue,
        id,
        state: 'pending',
        attempts: 0,
        payload: Buffer.from(bytes).toString('base64'),
        encoding: 'base64',
      });
      expect(await client.get(queue, mintId())).toBeUndefined();
      const row = await readJob(suite.reader, queue, id);
      expect(row?.payload.equals(Buffer.from(bytes))).toBe(true);
    });
  });

  describe('a 503 in the middle of a call', () => {
    it.each([
      ['a keyless enqueue', undefined],
      ['a keyed enqueue', 'fence-key'],
    ])('with the fence removed: %s retries with its key and makes one job', async (_, key) => {
      const queue = randomQueue('client-fence');
      const admin = await suite.server.client();
      const wire = await admin.get(FENCE);
      await admin.del(FENCE);
      const { client, statuses, sent } = recordingClient({
        // The fence comes back once the caller has seen it missing, before the client retries.
        onAnswer: async (status) => {
          if (status === 503) await admin.set(FENCE, wire ?? '1');
        },
      });
      try {
        const admitted = await client.enqueue(queue, 'through a 503', { idempotencyKey: key });
        // The fence's absence answered the first request; the retries admitted the job.
        expect(statuses[0]).toBe(503);
        expectAdmitted(statuses, admitted);
        // The same key on every request: the caller's, or the one the client minted for the call.
        expect(sent[0]?.key).toBe(key ?? sent[1]?.key);
        expect(sent.filter((request) => request.key !== sent[0]?.key)).toEqual([]);
        expect(await jobCount(queue)).toEqual({ rows: [admitted.id], pending: [admitted.id] });
      } finally {
        await admin.set(FENCE, wire ?? '1');
      }
    });

    it('gives up after its attempts with a retryable error that names its key; that key then makes one job', async () => {
      const queue = randomQueue('client-budget');
      const admin = await suite.server.client();
      const wire = await admin.get(FENCE);
      await admin.del(FENCE);
      const { client, statuses } = recordingClient({ retry: { attempts: 3 } });
      let error: EmqClientError;
      try {
        error = await client.enqueue(queue, 'patient').then(
          () => expect.unreachable('the fence is missing'),
          (thrown: EmqClientError) => thrown,
        );
      } finally {
        await admin.set(FENCE, wire ?? '1');
      }
      expect(statuses).toEqual([503, 503, 503]);
      expect(error).toMatchObject({ code: 'EMQWIRE', status: 503, retryable: true, attempts: 3 });
      expect(error.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      expect(error.message).toContain(
        `Gave up after 3 attempts. Send it again with idempotencyKey "${error.idempotencyKey}"`,
      );
      const admitted = await client.enqueue(queue, 'patient', {
        idempotencyKey: error.idempotencyKey,
      });
      expect(await jobCount(queue)).toEqual({ rows: [admitted.id], pending: [admitted.id] });
    });

    it('with writes paused (CLIENT PAUSE WRITE): the held write lands after the 503, and the retry is its duplicate', async () => {
      const queue = randomQueue('client-pause');
      await whilePaused(queue, async ({ client, statuses }) => {
        // whilePaused's warm-up read ends at its 404; the enqueue's requests follow it.
        const warmUp = statuses.indexOf(404);
        const admitted = await client.enqueue(queue, 'held');
        const answers = statuses.slice(warmUp + 1);
        // The held write answered 503 first (the pause ends only then), and a retry admitted it.
        expect(answers[0]).toBe(503);
        expectAdmitted(answers, admitted);
        expect(await jobCount(queue)).toEqual({ rows: [admitted.id], pending: [admitted.id] });
        expect((await readJob(suite.reader, queue, admitted.id))?.payload.toString()).toBe('held');
      });
    });
  });

  describe('an answer lost after the request was served', () => {
    // The timeout is far above the function's answer time, even on a loaded machine: the answer
    // has reached the proxy (and been swallowed) before the client gives up on it.
    it.each([
      ['the connection dropped', 'drop', {}],
      ['the request timed out', 'hold', { timeoutMs: 3_000 }],
    ] as const)(
      '(%s) is retried with the same key: the answer is the first request job, as a duplicate',
      async (_, lose, retry) => {
        const queue = randomQueue(`client-${lose}`);
        const proxy = await lossyProxy(new URL(suite.face.url), lose);
        try {
          const path = new URL(suite.endpoint).pathname;
          const { client, statuses, sent } = recordingClient({
            endpoint: `${proxy.url}${path}`,
            retry,
          });
          const admitted = await client.enqueue(queue, 'sent once');
          expect(proxy.lost()).toBe(1);
          expect(statuses[0]).toBe('no answer');
          // The lost answer admitted the job (201), or was itself a 503: then a retry admits it.
          expectAdmitted(statuses, admitted);
          if (proxy.lostStatus() === 201) expect(admitted.status).toBe('duplicate');
          else expect(proxy.lostStatus()).toBe(503);
          expect(sent.filter((request) => request.key !== sent[0]?.key)).toEqual([]);
          expect(await jobCount(queue)).toEqual({ rows: [admitted.id], pending: [admitted.id] });
        } finally {
          await proxy.close();
        }
      },
    );
  });
});
