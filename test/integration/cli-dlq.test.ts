// `emq dlq <queue-url>` and `emq send` against the SQS emulator the local stack runs (fauxqs,
// `npm start -- --sqs`), through the built CLI: dead letters the real SQS function wrote
// (through `emq sqs`, with EMQ_DLQ_URL) are shown with their reasons, and a peek leaves
// every message where it was, visible to the next reader at once.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Message, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeadLetter } from '../../cli/commands/dlq.js';
import { install } from '../../src/connection/fence.js';
import { sqsEvent, sqsRecord, stringAttribute } from '../fixtures/sqs/records.js';
import { assertBuilt, emq } from '../support/cli.js';
import { connectTo, jobsOf } from '../support/emq.js';
import { freePort, randomQueue, type ServerHandle, startStandalone } from '../support/servers.js';
import { SQS_REGION, useSqs } from '../support/sqs.js';

let server: ServerHandle;
const sqs = useSqs();
let folder: string;

beforeAll(async () => {
  assertBuilt();
  folder = await mkdtemp(join(tmpdir(), 'emq-cli-dlq-'));
  server = await startStandalone({ module: true });
  const connection = await connectTo(server, { checkFence: false });
  await install(connection);
  await connection.close();
});

afterAll(async () => {
  await server?.stop();
  await rm(folder, { recursive: true, force: true });
});

/** What the SQS function reads to dead-letter into `dlqUrl` on the emulator. */
function functionEnv(dlqUrl: string): Record<string, string> {
  return {
    EMQ_DLQ_URL: dlqUrl,
    AWS_ENDPOINT_URL_SQS: sqs().endpoint,
    AWS_REGION: SQS_REGION,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  };
}

async function peek(url: string, ...more: string[]): Promise<DeadLetter[]> {
  const run = await emq(['dlq', url, '--json', ...more]);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout.trim().split('\n')).toHaveLength(1);
  return (JSON.parse(run.stdout) as { messages: DeadLetter[] }).messages;
}

async function receiveNow(url: string): Promise<Message[]> {
  const { Messages = [] } = await sqs().client.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 0,
      VisibilityTimeout: 0,
    }),
  );
  return Messages;
}

describe('emq dlq', () => {
  it("shows the SQS function's dead letters with their reasons, routing attributes and body", async () => {
    const dlqUrl = sqs().queue();
    const good = randomQueue();
    const badQueue = sqsRecord({ body: 'to a bad queue', queue: 'not{valid}' });
    const typo = sqsRecord({
      body: 'x'.repeat(500),
      queue: good,
      attributes: { 'emq-job_id': stringAttribute('JOB0KHTOWnGLuC') },
    });
    const file = join(folder, 'event.json');
    await writeFile(
      file,
      JSON.stringify(sqsEvent([badQueue, sqsRecord({ body: 'fine', queue: good }), typo])),
    );
    const ran = await emq(['sqs', file, '--json', '--url', server.url], {
      env: functionEnv(dlqUrl),
    });
    expect(ran.code, ran.stderr).toBe(0);
    const connection = await connectTo(server, { checkFence: false });
    try {
      expect((await jobsOf(connection, good)).rows).toHaveLength(1);
    } finally {
      await connection.close();
    }

    const letters = await peek(dlqUrl);
    const bySource = new Map(letters.map((letter) => [letter.sourceMessageId, letter]));
    expect(letters).toHaveLength(2);
    expect(bySource.get(badQueue.messageId)).toMatchObject({
      errorCode: 'EMQ_INVALID_QUEUE',
      attributes: { 'emq-queue': 'not{valid}' },
      body: 'to a bad queue',
      bodyChars: 14,
    });
    expect(bySource.get(badQueue.messageId)?.errorDetail).toContain('not{valid}');
    const typoLetter = bySource.get(typo.messageId);
    expect(typoLetter?.errorCode).toBe('EMQ_INVALID_REQUEST');
    expect(typoLetter?.errorDetail).toContain('emq-job_id');
    expect(typoLetter?.attributes).toEqual({ 'emq-queue': good, 'emq-job_id': 'JOB0KHTOWnGLuC' });
    expect(typoLetter?.body).toBe(`${'x'.repeat(120)}…`);
    expect(typoLetter?.bodyChars).toBe(500);
    for (const letter of letters) {
      expect(letter.messageId).toMatch(/\S/);
      expect(Date.parse(letter.sentAt ?? '')).not.toBeNaN();
    }

    const text = await emq(['dlq', dlqUrl]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^emq-error-code +EMQ_INVALID_QUEUE$/m);
    expect(text.stdout).toMatch(new RegExp(`^emq-source-message-id +${badQueue.messageId}$`, 'm'));
    expect(text.stdout).toMatch(/^emq-queue +not\{valid\}$/m);
    expect(text.stdout).toMatch(/^body +"to a bad queue" \(14 characters\)$/m);
    expect(text.stderr).toBe('2 messages peeked; nothing was taken.\n');
  });

  it('takes nothing: a peek leaves every message visible to the next reader at once', async () => {
    const dlqUrl = sqs().queue();
    for (const body of ['one', 'two', 'three']) {
      await sqs().client.send(new SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: body }));
    }
    const first = await peek(dlqUrl);
    expect(first.map((letter) => letter.body).sort()).toEqual(['one', 'three', 'two']);
    // Not deleted, not hidden for a visibility timeout: received again right away.
    expect((await receiveNow(dlqUrl)).map((message) => message.Body).sort()).toEqual([
      'one',
      'three',
      'two',
    ]);
    const again = await peek(dlqUrl);
    expect(again.map((letter) => letter.messageId).sort()).toEqual(
      first.map((letter) => letter.messageId).sort(),
    );
    // A message the function did not dead-letter (a redrive) has no reason: said so.
    expect(first[0]?.errorCode).toBeUndefined();
    expect((await emq(['dlq', dlqUrl])).stdout).toContain(
      '(none: not dead-lettered by the SQS function)',
    );
  });

  it('shows at most --max messages and says there may be more', async () => {
    const dlqUrl = sqs().queue();
    for (const body of ['a', 'b', 'c']) {
      await sqs().client.send(new SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: body }));
    }
    expect(await peek(dlqUrl, '--max', '2')).toHaveLength(2);
    const text = await emq(['dlq', dlqUrl, '--max', '2']);
    expect(text.stderr).toContain('there may be more: raise --max');
  });

  it('exits 0 on an empty DLQ, with an empty list', async () => {
    const dlqUrl = sqs().queue();
    expect(await peek(dlqUrl)).toEqual([]);
    const text = await emq(['dlq', dlqUrl]);
    expect(text.stdout).toBe('');
    expect(text.stderr).toContain('No message in the DLQ');
  });

  it('exits 1 naming the cause when nothing answers at the endpoint', async () => {
    const port = await freePort();
    const run = await emq([
      'dlq',
      `http://sqs.us-east-1.localhost:${port}/000000000000/emq-local-dlq`,
      '--json',
    ]);
    expect(run.code).toBe(1);
    const { error } = JSON.parse(run.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('EMQ_SQS_RECEIVE_FAILED');
    expect(error.message).toMatch(/^The endpoint did not answer.*ECONNREFUSED/);
  });

  it('exits 1 naming the cause when the queue does not exist', async () => {
    const url = sqs()
      .queue()
      .replace(/[^/]+$/, 'no-such-queue');
    const run = await emq(['dlq', url]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^emq: EMQ_SQS_RECEIVE_FAILED: The queue does not exist/);
  });
});

describe('emq send', () => {
  it('sends the emq-* attributes the SQS function reads, to the emulator', async () => {
    const url = sqs().queue();
    const id = 'JOB0KHTOWnGLuC';
    const run = await emq(['send', url, 'c29tZQ==', '--queue', 'demo', '--id', id, '--base64']);
    expect(run.code, run.stderr).toBe(0);
    const [message] = await sqs()
      .client.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MessageAttributeNames: ['All'],
          WaitTimeSeconds: 0,
        }),
      )
      .then(({ Messages = [] }) => Messages);
    expect(message?.MessageId).toBe(run.stdout.trim());
    expect(message?.Body).toBe('c29tZQ==');
    const attributes = Object.fromEntries(
      Object.entries(message?.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        value.StringValue,
      ]),
    );
    expect(attributes).toEqual({ 'emq-queue': 'demo', 'emq-job-id': id, 'emq-encoding': 'base64' });
  });

  it('exits 1 naming the cause when the queue does not exist', async () => {
    const url = sqs()
      .queue()
      .replace(/[^/]+$/, 'no-such-queue');
    const run = await emq(['send', url, 'x']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^emq: EMQ_SQS_SEND_FAILED: The queue does not exist/);
  });
});
