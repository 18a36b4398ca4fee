// `emq sqs <event.json>` runs the real SQS handler on an event file against a real server and
// prints its answer; the function's log lines go to stderr so stdout stays the answer.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install } from '../../src/connection/fence.js';
import { type Connection, readJob } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import { sqsEvent, sqsRecord } from '../fixtures/sqs/records.js';
import { assertBuilt, emq } from '../support/cli.js';
import { connectTo, jobsOf } from '../support/emq.js';
import { freePort, randomQueue, type ServerHandle, startStandalone } from '../support/servers.js';

let server: ServerHandle;
let connection: Connection;
let folder: string;

beforeAll(async () => {
  assertBuilt();
  folder = await mkdtemp(join(tmpdir(), 'emq-cli-sqs-'));
  server = await startStandalone({ module: true });
  connection = await connectTo(server, { checkFence: false });
  await install(connection);
});

afterAll(async () => {
  await server?.stop();
  await rm(folder, { recursive: true, force: true });
});

let files = 0;
async function eventFile(event: SQSEvent | string): Promise<string> {
  files += 1;
  const file = join(folder, `event-${files}.json`);
  await writeFile(file, typeof event === 'string' ? event : JSON.stringify(event));
  return file;
}

const at = () => ['--url', server.url];

describe('emq sqs', () => {
  it('admits every record of the event and prints an empty failure list', async () => {
    const queue = randomQueue();
    const id = mintId();
    const file = await eventFile(
      sqsEvent([sqsRecord({ body: 'one', queue, jobId: id }), sqsRecord({ body: 'two', queue })]),
    );
    const run = await emq(['sqs', file, ...at()]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ batchItemFailures: [] });
    expect((await readJob(connection, queue, id))?.payload.toString()).toBe('one');
    const { rows } = await jobsOf(connection, queue);
    expect(rows).toHaveLength(2);
    const payloads = await Promise.all(rows.map((row) => readJob(connection, queue, row)));
    expect(payloads.map((row) => row?.payload.toString()).sort()).toEqual(['one', 'two']);
  });

  it('uses EMQ_DEFAULT_QUEUE for records without an emq-queue attribute', async () => {
    const queue = randomQueue();
    const file = await eventFile(sqsEvent([sqsRecord({ body: 'default' })]));
    const run = await emq(['sqs', file, ...at()], { env: { EMQ_DEFAULT_QUEUE: queue } });
    expect(run.code).toBe(0);
    expect((await jobsOf(connection, queue)).rows).toHaveLength(1);
  });

  it('exits 1 and names the records SQS would retry, admitting the others', async () => {
    const queue = randomQueue();
    const bad = sqsRecord({ body: 'x', queue: 'not{valid}' });
    const file = await eventFile(sqsEvent([bad, sqsRecord({ body: 'fine', queue })]));
    const run = await emq(['sqs', file, '--json', ...at()]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      batchItemFailures: [{ itemIdentifier: bad.messageId }],
    });
    expect((await jobsOf(connection, queue)).rows).toHaveLength(1);
  });

  it("writes the function's log lines to stderr, never to stdout", async () => {
    const file = await eventFile(sqsEvent([sqsRecord({ body: 'logged', queue: randomQueue() })]));
    const run = await emq(['sqs', file, '--json', ...at()]);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^\{"level":/m);
  });

  it('reads the event from stdin with -', async () => {
    const queue = randomQueue();
    const event = JSON.stringify(sqsEvent([sqsRecord({ body: 'piped', queue })]));
    const run = await emq(['sqs', '-', ...at()], { input: event });
    expect(run.code).toBe(0);
    expect((await jobsOf(connection, queue)).rows).toHaveLength(1);
  });

  it('retries every record when Valkey is unreachable: exit 1, all listed', async () => {
    const records = [sqsRecord({ body: 'a' }), sqsRecord({ body: 'b' })];
    const file = await eventFile(sqsEvent(records));
    const port = await freePort();
    const run = await emq(['sqs', file, '--json', '--url', `redis://127.0.0.1:${port}`]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      batchItemFailures: records.map(({ messageId }) => ({ itemIdentifier: messageId })),
    });
  });

  it('exits 2 when the event file cannot be read', async () => {
    const run = await emq(['sqs', join(folder, 'missing.json'), ...at()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^emq: EMQ_USAGE: Cannot read the event file .*ENOENT/);
  });

  it('exits 2 when the file is not an SQS event', async () => {
    for (const text of ['not json', '{"records": []}', '{"Records": {}}']) {
      const run = await emq(['sqs', await eventFile(text), ...at()]);
      expect(run.code, text).toBe(2);
      expect(run.stderr).toMatch(/^emq: EMQ_INVALID_EVENT: /);
    }
  });
});
