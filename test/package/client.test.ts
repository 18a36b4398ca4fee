// The producer client as users get it: from a folder that installed the packed tarball, a
// plain Node program imports `echomq-lambda/client` and calls the HTTP and SQS functions the
// package ships (their bundles from node_modules, each in a process of its own, as Lambda runs
// them) on a real Valkey. A keyed and a keyless enqueue through a 503 make one job each; a
// refusal is thrown at once; a batch answers in order; an entry sent twice under two message
// ids is one job. The jobs are counted in Valkey.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '../../src/index.js';
import { connectTo, jobsOf, startFencedServer } from '../support/emq.js';
import {
  type RunningFace,
  type RunningSqsFace,
  startHttpFace,
  startSqsFace,
} from '../support/functions.js';
import { type InstalledPackage, installPackage } from '../support/package.js';
import { randomQueue, type ServerHandle } from '../support/servers.js';

let installed: InstalledPackage;
let server: ServerHandle;
let http: RunningFace;
let sqs: RunningSqsFace;
let reader: Connection;

beforeAll(async () => {
  [installed, server] = await Promise.all([installPackage(), startFencedServer()]);
  const bundles = join(installed.dir, 'node_modules', 'echomq-lambda', 'dist', 'functions');
  [http, sqs] = await Promise.all([
    startHttpFace(server, { bundles }),
    startSqsFace(server, { bundles }),
  ]);
  reader = await connectTo(server);
}, 300_000);

afterAll(async () => {
  await Promise.all([http?.stop(), sqs?.stop()]);
  await Promise.all([installed?.remove(), server?.stop()]);
});

/**
 * The consumer's program. Before each enqueue it takes the fence away (with the package's own
 * core, as an operator's mistake would), and its fetch puts the fence back once it has seen
 * the 503, so the client's retry is what admits the job.
 */
const PROGRAM = `import { SQSClient } from '@aws-sdk/client-sqs';
import { connect, install } from 'echomq-lambda';
import { EchoMqClient, EmqClientError, sendJobs, sqsEntry } from 'echomq-lambda/client';

const [endpoint, valkey, sqsEndpoint, queueUrl, queue] = process.argv.slice(2);
const admin = await connect({ urls: [valkey], cluster: false, checkFence: false });
const statuses = [];
const client = new EchoMqClient({
  endpoint,
  credentials: false,
  retry: { baseDelayMs: 5, maxDelayMs: 50 },
  fetch: async (url, init) => {
    const response = await fetch(url, init);
    statuses.push(response.status);
    if (response.status === 503) await install(admin);
    return response;
  },
});
const through503 = async (options) => {
  statuses.length = 0;
  await admin.client.del('{emq}:version');
  const admitted = await client.enqueue(queue, 'through a 503', options);
  return { admitted, statuses: [...statuses] };
};
const keyless = await through503({});
const keyed = await through503({ idempotencyKey: 'order-1' });
const refused = await client
  .enqueue(queue, 'another body', { idempotencyKey: 'order-1' })
  .catch((error) => ({ client: error instanceof EmqClientError, code: error.code, status: error.status, attempts: error.attempts }));
const batch = await client.enqueueBatch(queue, [{ payload: 'a' }, { payload: 'through a 503', idempotencyKey: 'order-1' }, { payload: 'c' }]);

const sqs = new SQSClient({ endpoint: sqsEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
const entry = sqsEntry({ queue, payload: 'sent twice' });
const sent = [await sendJobs(sqs, queueUrl, [entry]), await sendJobs(sqs, queueUrl, [entry])];
sqs.destroy();
await admin.close();
console.log(JSON.stringify({ keyless, keyed, refused, batch, entry: entry.Id, sent }));
`;

describe('the installed client', () => {
  it('makes exactly one job per call through 503s, refuses at once, answers a batch in order, and one job of an entry sent twice', async () => {
    const queue = randomQueue('pkg-client');
    const path = await installed.write('producer.mjs', PROGRAM);
    const run = await installed.run(process.execPath, [
      path,
      http.url,
      server.url,
      sqs.endpoint,
      sqs.url,
      queue,
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const seen = JSON.parse(run.stdout);

    expect(seen.keyless.statuses).toEqual([503, 201]);
    expect(seen.keyed.statuses).toEqual([503, 201]);
    expect(seen.keyless.admitted.status).toBe('enqueued');
    expect(seen.keyed.admitted.status).toBe('enqueued');
    expect(seen.refused).toEqual({
      client: true,
      code: 'EMQ_IDEMPOTENCY_MISMATCH',
      status: 422,
      attempts: 1,
    });
    expect(seen.batch.map((outcome: { status: string }) => outcome.status)).toEqual([
      'enqueued',
      'duplicate',
      'enqueued',
    ]);
    expect(seen.batch[1].id).toBe(seen.keyed.admitted.id);
    expect(seen.sent[1].successful[0].MessageId).not.toBe(seen.sent[0].successful[0].MessageId);

    expect(await sqs.settled()).toBe(0);
    const ids = [
      seen.keyless.admitted.id,
      seen.keyed.admitted.id,
      seen.batch[0].id,
      seen.batch[2].id,
      seen.entry,
    ].sort();
    expect(await jobsOf(reader, queue)).toEqual({ rows: ids, pending: ids });
  });
});
