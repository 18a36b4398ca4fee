// The producer client as users get it: from a folder that installed the packed tarball, a
// plain Node program imports `echomq-lambda/client` and calls the HTTP and SQS functions the
// package ships (their bundles from node_modules, each in a process of its own, as Lambda runs
// them) on a real Valkey. The HTTP function is behind the routes of the synthesized stack,
// matched as API Gateway matches them; the client is pointed at its root (with and without a
// trailing `/`) and at a named stage. At each: a keyed and a keyless enqueue through a 503 make
// one job each; a replay is their duplicate; a refusal is thrown at once; a job reads back; a
// batch of 300 jobs of 30 KB (9 MB, over one request's 6 MiB) goes through a 503 and answers
// in input order. An SQS entry sent twice under two message ids is one job. The installed
// HTTP function answers 413 to a 9 MB batch in every event form. The jobs are counted in Valkey.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, readJob } from '../../src/index.js';
import { batchOf, eventWithBody, FORMATS } from '../fixtures/http/events.js';
import { expectAdmitted, expectRetriedUntil } from '../support/client-fronts.js';
import { connectTo, jobsOf, startFencedServer } from '../support/emq.js';
import {
  type RunningHttpFace,
  type RunningSqsFace,
  startHttpFace,
  startSqsFace,
} from '../support/functions.js';
import { type InstalledPackage, installPackage } from '../support/package.js';
import { randomQueue, type ServerHandle } from '../support/servers.js';

let installed: InstalledPackage;
let server: ServerHandle;
let root: RunningHttpFace;
let staged: RunningHttpFace;
let sqs: RunningSqsFace;
let reader: Connection;

beforeAll(async () => {
  [installed, server] = await Promise.all([installPackage(), startFencedServer()]);
  const bundles = join(installed.dir, 'node_modules', 'echomq-lambda', 'dist', 'functions');
  [root, staged, sqs] = await Promise.all([
    startHttpFace(server, { bundles }),
    startHttpFace(server, { bundles, front: { kind: 'api', stage: 'prod' } }),
    startSqsFace(server, { bundles }),
  ]);
  reader = await connectTo(server);
}, 300_000);

afterAll(async () => {
  await Promise.all([root?.stop(), staged?.stop(), sqs?.stop()]);
  await Promise.all([installed?.remove(), server?.stop()]);
});

/**
 * The consumer's program, run once per endpoint. Before each call through a 503 it takes the
 * fence away (with the package's own core, as an operator's mistake would), and its fetch puts
 * the fence back once it has seen the 503 (with the package's \`emq install\`, as the operator
 * would), so the client's retry is what admits the jobs.
 */
const PROGRAM = `import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SQSClient } from '@aws-sdk/client-sqs';
import { connect } from 'echomq-lambda';
import { EchoMqClient, EmqClientError, sendJobs, sqsEntry } from 'echomq-lambda/client';

const [endpoint, valkey, queue, sqsEndpoint, queueUrl] = process.argv.slice(2);
const emq = fileURLToPath(new URL('node_modules/.bin/emq', import.meta.url));
const install = () => promisify(execFile)(emq, ['install', '--url', valkey]);
const admin = await connect({ urls: [valkey], cluster: false, checkFence: false });
const statuses = [];
const client = new EchoMqClient({
  endpoint,
  credentials: false,
  retry: { baseDelayMs: 5, maxDelayMs: 50 },
  fetch: async (url, init) => {
    const response = await fetch(url, init);
    statuses.push(response.status);
    if (response.status === 503) await install();
    return response;
  },
});
const counted = async (call) => {
  statuses.length = 0;
  const result = await call();
  return { result, statuses: [...statuses] };
};
const through503 = async (call) => {
  await admin.client.del('{emq}:version');
  return counted(call);
};
const keyless = await through503(() => client.enqueue(queue, 'through a 503'));
const keyed = await through503(() => client.enqueue(queue, 'through a 503', { idempotencyKey: 'order-1' }));
const replay = await counted(() => client.enqueue(queue, 'through a 503', { idempotencyKey: 'order-1' }));
const refused = await counted(() => client
  .enqueue(queue, 'another body', { idempotencyKey: 'order-1' })
  .catch((error) => ({ client: error instanceof EmqClientError, code: error.code, status: error.status, attempts: error.attempts })));
const read = await client.get(queue, keyed.result.id);
const batch = await counted(() => client.enqueueBatch(queue, [{ payload: 'a' }, { payload: 'through a 503', idempotencyKey: 'order-1' }, { payload: 'c' }]));
const jobs = Array.from({ length: 300 }, (_, index) => ({ payload: (index + ':').padEnd(30000, 'x') }));
const large = await through503(() => client.enqueueBatch(queue, jobs));

let sent;
if (sqsEndpoint !== undefined) {
  const sqs = new SQSClient({ endpoint: sqsEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const entry = sqsEntry({ queue, payload: 'sent twice' });
  sent = { entry: entry.Id, sends: [await sendJobs(sqs, queueUrl, [entry]), await sendJobs(sqs, queueUrl, [entry])] };
  sqs.destroy();
}
await admin.close();
console.log(JSON.stringify({ keyless, keyed, replay, refused, read, batch, large, sent }));
`;

/** Runs the program against `endpoint` (with the SQS face when `withSqs`); what it saw. */
async function produce(endpoint: string, queue: string, withSqs: boolean) {
  const path = await installed.write('producer.mjs', PROGRAM);
  const args = [path, endpoint, server.url, queue, ...(withSqs ? [sqs.endpoint, sqs.url] : [])];
  const run = await installed.run(process.execPath, args);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
}

describe('the installed client', () => {
  it.each([
    ["the HTTP API's root", () => root.url, true],
    ["the HTTP API's root with a trailing /", () => `${root.url}/`, false],
    ['the named stage /prod', () => staged.url, false],
  ] as const)(
    'at %s: one job per call through 503s, a replay, a refusal, a read, 300 jobs of 30 KB in order',
    async (_, endpoint, withSqs) => {
      const queue = randomQueue('pkg-client');
      const seen = await produce(endpoint(), queue, withSqs);

      // The fence's absence answered each call's first request; retries admitted the jobs.
      // A loaded machine can answer more 503s (a command past the command timeout): each
      // call is checked as retries the client promises, never as an exact sequence.
      for (const call of [seen.keyless, seen.keyed]) {
        expect(call.statuses[0]).toBe(503);
        expectAdmitted(call.statuses, call.result);
      }
      expect(seen.replay.result).toEqual({ queue, id: seen.keyed.result.id, status: 'duplicate' });
      expectRetriedUntil(seen.replay.statuses, [200]);
      // Thrown at once: the 422 ended the call, and the error counts every request it took.
      expectRetriedUntil(seen.refused.statuses, [422]);
      expect(seen.refused.result).toEqual({
        client: true,
        code: 'EMQ_IDEMPOTENCY_MISMATCH',
        status: 422,
        attempts: seen.refused.statuses.length,
      });
      expect(seen.read).toMatchObject({ id: seen.keyed.result.id, payload: 'through a 503' });
      const batch: { id: string; status: string }[] = seen.batch.result;
      // A new job is `enqueued`, or after a 503 `duplicate` of what its earlier request wrote.
      const fresh = seen.batch.statuses.includes(503)
        ? expect.stringMatching(/^(enqueued|duplicate)$/)
        : 'enqueued';
      expect(batch.map((outcome) => outcome.status)).toEqual([fresh, 'duplicate', fresh]);
      expect(batch[1]?.id).toBe(seen.keyed.result.id);
      // 9 MB goes as requests of at most 6 MiB; the first answered 503 (the fence), and only
      // 503s were retried.
      expect(seen.large.statuses[0]).toBe(503);
      expect(
        seen.large.statuses.filter((status: number) => status !== 200 && status !== 503),
      ).toEqual([]);
      const large: { id: string; status: string }[] = seen.large.result;
      // The fence's 503 wrote nothing: every job is new, unless load answered another 503
      // after a write (its job then comes back a duplicate).
      const only = seen.large.statuses.filter((status: number) => status === 503).length === 1;
      expect(
        large.filter(
          (outcome) => !(only ? ['enqueued'] : ['enqueued', 'duplicate']).includes(outcome.status),
        ),
      ).toEqual([]);
      expect(new Set(large.map(({ id }) => id)).size).toBe(300);
      const rows = await Promise.all(large.map(({ id }) => readJob(reader, queue, id)));
      expect(rows.map((row) => row?.payload.toString().split(':')[0])).toEqual(
        large.map((__, index) => String(index)),
      );

      const ids = [seen.keyless.result.id, seen.keyed.result.id, batch[0]?.id, batch[2]?.id];
      ids.push(...large.map(({ id }) => id));
      if (withSqs) {
        const [first, second] = seen.sent.sends;
        expect(second.successful[0].MessageId).not.toBe(first.successful[0].MessageId);
        expect(await sqs.settled()).toBe(0);
        ids.push(seen.sent.entry);
      }
      ids.sort();
      expect(await jobsOf(reader, queue)).toEqual({ rows: ids, pending: ids });
    },
  );

  it('its HTTP function answers 413 to a 9 MB batch in every event form, base64 or not', async () => {
    const queue = randomQueue('pkg-413');
    const body = batchOf(300, 30_000);
    for (const form of FORMATS) {
      for (const base64 of [false, true]) {
        const response = (await root.invoke(eventWithBody(form, 'batch', queue, body, base64))) as {
          statusCode: number;
          headers: Record<string, string>;
          body: string;
        };
        expect(response.statusCode, `${form} base64 ${base64}`).toBe(413);
        expect(response.headers['content-type']).toBe('application/problem+json');
        expect(JSON.parse(response.body)).toMatchObject({ code: 'EMQ_PAYLOAD_TOO_LARGE' });
      }
    }
    expect(await jobsOf(reader, queue)).toEqual({ rows: [], pending: [] });
  });
});
