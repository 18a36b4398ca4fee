// The SQS face against an SQS emulator from npm (fauxqs, the local stack's `--sqs`): the
// local loop (receive, the real handler, delete, redrive after maxReceiveCount) and the
// emulator's fidelity on the limits the face relies on. Dead letters sent straight to it are
// tested in sqs-dlq.test.ts.
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localContext } from '../../cli/runtime/lambda-context.js';
import { resetContainer } from '../../functions/shared/connection.js';
import { setLogSink } from '../../functions/shared/log.js';
import { handler } from '../../functions/sqs/handler.js';
import { type LocalSqs, startLocalSqs } from '../../scripts/local/sqs-loop.js';
import { install } from '../../src/connection/fence.js';
import { readJob } from '../../src/index.js';
import { connectTo, jobsOf } from '../support/emq.js';
import { DEFAULT_EVENT_SOURCE } from '../support/functions.js';
import { randomQueue, type ServerHandle, startStandalone } from '../support/servers.js';
import { waitFor } from '../support/wait.js';

const MAX_RECEIVES = 5;
let fenced: ServerHandle;
let unfenced: ServerHandle;
let sqs: LocalSqs;
let client: SQSClient;
let target: ServerHandle;
const errors: string[] = [];

/** Points the SQS function at `server`, as a deployment's environment does. */
async function pointAt(server: ServerHandle): Promise<void> {
  await resetContainer();
  target = server;
  process.env.EMQ_URL = server.url;
  process.env.EMQ_DLQ_URL = sqs.dlqUrl;
  process.env.AWS_ENDPOINT_URL_SQS = sqs.endpoint;
  process.env.AWS_REGION = 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID = 'local';
  process.env.AWS_SECRET_ACCESS_KEY = 'local';
}

/** A client of a local SQS server. */
function clientOf(server: LocalSqs): SQSClient {
  return new SQSClient({
    endpoint: server.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** Messages in a queue, visible or in flight. */
async function messagesIn(sqsClient: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes } = await sqsClient.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }),
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages) +
    Number(Attributes?.ApproximateNumberOfMessagesNotVisible)
  );
}

async function receiveAll(queueUrl: string): Promise<Message[]> {
  const { Messages = [] } = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 0,
      MessageAttributeNames: ['All'],
      MessageSystemAttributeNames: ['All'],
      VisibilityTimeout: 0,
    }),
  );
  return Messages;
}

beforeAll(async () => {
  fenced = await startStandalone({ module: true });
  unfenced = await startStandalone({ module: true });
  const connection = await connectTo(fenced, { checkFence: false });
  await install(connection);
  await connection.close();
  setLogSink(() => {});
  sqs = await startLocalSqs(
    0,
    async (event) => {
      if (target === undefined) return { batchItemFailures: [] };
      return (await handler(event, localContext({ functionName: 'emq-sqs' }))) as SQSBatchResponse;
    },
    (message) => errors.push(message),
    DEFAULT_EVENT_SOURCE,
    1,
  );
  client = clientOf(sqs);
  await pointAt(fenced);
});

afterAll(async () => {
  await sqs?.close();
  client?.destroy();
  await resetContainer();
  for (const name of ['EMQ_URL', 'EMQ_DLQ_URL', 'AWS_ENDPOINT_URL_SQS']) delete process.env[name];
  await fenced?.stop();
  await unfenced?.stop();
});

describe('the local SQS loop', () => {
  it('admits a sent message through the real handler and deletes it', async () => {
    const queue = randomQueue('loop');
    await client.send(
      new SendMessageCommand({
        QueueUrl: sqs.queueUrl,
        MessageBody: 'hello from sqs',
        MessageAttributes: { 'EMQ-Queue': { DataType: 'String', StringValue: queue } },
      }),
    );
    const reader = await connectTo(fenced, { checkFence: false });
    try {
      await waitFor('the job to be admitted', 30_000, async () =>
        (await jobsOf(reader, queue)).rows.length === 1 ? undefined : 'no row yet',
      );
      const [id] = (await jobsOf(reader, queue)).rows;
      expect((await readJob(reader, queue, id ?? ''))?.payload.toString()).toBe('hello from sqs');
    } finally {
      await reader.close();
    }
    await waitFor('the message to be deleted', 30_000, async () => {
      const left = await messagesIn(client, sqs.queueUrl);
      return left === 0 ? undefined : `${left} messages left`;
    });
  });

  it('dead-letters a permanent failure with its reason and its attributes intact', async () => {
    const sent = await client.send(
      new SendMessageCommand({
        QueueUrl: sqs.queueUrl,
        MessageBody: 'to the dlq',
        MessageAttributes: {
          'emq-queue': { DataType: 'String', StringValue: 'bad queue' },
          trace: { DataType: 'Binary', BinaryValue: Buffer.from([1, 2, 255]) },
        },
      }),
    );
    let letter: Message | undefined;
    await waitFor('the dead letter', 30_000, async () => {
      letter = (await receiveAll(sqs.dlqUrl)).find((message) => message.Body === 'to the dlq');
      return letter === undefined ? 'not in the DLQ yet' : undefined;
    });
    const attributes = letter?.MessageAttributes ?? {};
    expect(attributes['emq-error-code']?.StringValue).toBe('EMQ_INVALID_QUEUE');
    expect(attributes['emq-source-message-id']?.StringValue).toBe(sent.MessageId);
    expect(attributes['emq-queue']?.StringValue).toBe('bad queue');
    expect(Buffer.from(attributes.trace?.BinaryValue ?? []).equals(Buffer.from([1, 2, 255]))).toBe(
      true,
    );
  });

  it('redrives a record that keeps failing retryably to the DLQ after maxReceiveCount', async () => {
    // No fence on this server: every attempt is a retryable EMQWIRE, a batch item failure.
    await pointAt(unfenced);
    try {
      await client.send(
        new SendMessageCommand({ QueueUrl: sqs.queueUrl, MessageBody: 'keeps failing' }),
      );
      let moved: Message | undefined;
      await waitFor('the redrive', 30_000, async () => {
        moved = (await receiveAll(sqs.dlqUrl)).find((message) => message.Body === 'keeps failing');
        return moved === undefined ? 'not redriven yet' : undefined;
      });
      // Redriven by the queue, not dead-lettered by the function: no reason attributes.
      expect(moved?.MessageAttributes?.['emq-error-code']).toBeUndefined();
      expect(Number(moved?.Attributes?.ApproximateReceiveCount)).toBeGreaterThanOrEqual(
        MAX_RECEIVES,
      );
    } finally {
      await pointAt(fenced);
    }
  });
});

describe('the emulator keeps the SQS limits the face relies on', () => {
  const send = (input: Partial<ConstructorParameters<typeof SendMessageCommand>[0]>) =>
    client.send(new SendMessageCommand({ QueueUrl: sqs.dlqUrl, MessageBody: 'x', ...input }));

  it('falls short on the attribute limit: it accepts an 11th attribute, which SQS refuses', async () => {
    // So the 10-attribute budget of a dead letter (7 originals + 3 reasons) cannot be proven
    // here: test/unit/sqs-dlq-attributes.test.ts holds it. Should fauxqs start refusing, this
    // fails, and the limit can be tested here instead.
    const attributes = Object.fromEntries(
      Array.from({ length: 11 }, (_, i) => [`a${i}`, { DataType: 'String', StringValue: 'v' }]),
    );
    await expect(send({ MessageAttributes: attributes })).resolves.toBeDefined();
  });

  it('refuses a message over 1 MiB', async () => {
    await expect(send({ MessageBody: 'x'.repeat(1_048_577) })).rejects.toThrow();
  });

  it('refuses a FIFO message without a group id', async () => {
    const { QueueUrl = '' } = await client.send(
      new CreateQueueCommand({ QueueName: 'emq-probe.fifo', Attributes: { FifoQueue: 'true' } }),
    );
    await expect(
      client.send(
        new SendMessageCommand({ QueueUrl, MessageBody: 'x', MessageDeduplicationId: 'd' }),
      ),
    ).rejects.toThrow();
  });

  it('falls short on FIFO batches: one message per group per receive, where SQS returns the group in order', async () => {
    // Lambda gets several records of one group in a batch from SQS; the face's waves
    // (sqs-fifo.test.ts) are tested with hand-made events for that reason.
    const { QueueUrl = '' } = await client.send(
      new CreateQueueCommand({ QueueName: 'emq-groups.fifo', Attributes: { FifoQueue: 'true' } }),
    );
    for (const n of [1, 2, 3]) {
      await client.send(
        new SendMessageCommand({
          QueueUrl,
          MessageBody: `m${n}`,
          MessageGroupId: 'g',
          MessageDeduplicationId: `d${n}`,
        }),
      );
    }
    expect((await receiveAll(QueueUrl)).map((message) => message.Body)).toEqual(['m1']);
  });

  it('counts receives', async () => {
    const { QueueUrl = '' } = await client.send(new CreateQueueCommand({ QueueName: 'emq-probe' }));
    await client.send(new SendMessageCommand({ QueueUrl, MessageBody: 'count me' }));
    const first = await receiveAll(QueueUrl);
    const second = await receiveAll(QueueUrl);
    expect(first[0]?.Attributes?.ApproximateReceiveCount).toBe('1');
    expect(second[0]?.Attributes?.ApproximateReceiveCount).toBe('2');
  });
});

describe('the local SQS loop with the event source settings of another stack', () => {
  let other: LocalSqs;
  let otherClient: SQSClient;
  const batches: string[][] = [];

  beforeAll(async () => {
    // Records are gathered up to the batch size within the window; without
    // ReportBatchItemFailures, Lambda deletes the whole batch whatever the answer lists.
    other = await startLocalSqs(
      0,
      async (event) => {
        batches.push(event.Records.map((record) => record.body));
        return { batchItemFailures: [{ itemIdentifier: event.Records[0]?.messageId ?? '' }] };
      },
      (message) => errors.push(message),
      { batchSize: 25, batchingWindowSeconds: 20, reportBatchItemFailures: false },
      1,
    );
    otherClient = clientOf(other);
  });

  afterAll(async () => {
    await other?.close();
    otherClient?.destroy();
  });

  it('invokes with one batch of 25 gathered over receives of 10, and deletes it all', async () => {
    const bodies = Array.from({ length: 25 }, (_, index) => `record ${index}`);
    for (let at = 0; at < bodies.length; at += 10) {
      await otherClient.send(
        new SendMessageBatchCommand({
          QueueUrl: other.queueUrl,
          Entries: bodies.slice(at, at + 10).map((body, index) => ({
            Id: `m${index}`,
            MessageBody: body,
          })),
        }),
      );
    }
    await waitFor('the queue to be empty', 30_000, async () => {
      const left = await messagesIn(otherClient, other.queueUrl);
      return left === 0 && batches.length > 0 ? undefined : `${left} messages left`;
    });
    expect(batches.map((batch) => [...batch].sort())).toEqual([[...bodies].sort()]);
    const letters = await otherClient.send(
      new ReceiveMessageCommand({ QueueUrl: other.dlqUrl, WaitTimeSeconds: 0 }),
    );
    expect(letters.Messages ?? []).toEqual([]);
  });
});
