/**
 * The local SQS loop (`npm start -- --sqs`): an SQS-compatible server from npm (fauxqs), a
 * source queue and a DLQ with a redrive policy, and a poller that does what Lambda's event
 * source mapping does with the stack's settings (batch size, batching window,
 * ReportBatchItemFailures): gather a batch (receives of at most 10, all attributes), invoke
 * the real SQS handler, delete what it handled, and leave its batch item failures to come back
 * after the visibility timeout, until the redrive policy moves them to the DLQ. Without
 * ReportBatchItemFailures, Lambda ignores the list: an answer deletes the whole batch.
 */
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { EventSourceSettings } from './template.js';

/** The local queues' settings. */
export const LOCAL_SQS = {
  region: 'us-east-1',
  queueName: 'emq-local',
  dlqName: 'emq-local-dlq',
  /** SQS's most messages per receive. */
  maxPerReceive: 10,
  /** Short, so a retried record comes back while you watch (the stack deploys 6 × the timeout). */
  visibilityTimeoutSeconds: 5,
  /** The stack's redrive policy. */
  maxReceiveCount: 5,
  waitTimeSeconds: 1,
} as const;

export type SqsInvoke = (event: SQSEvent) => Promise<SQSBatchResponse>;

export interface LocalSqs {
  /** The endpoint SDKs and the AWS CLI talk to. */
  readonly endpoint: string;
  readonly queueUrl: string;
  readonly dlqUrl: string;
  /** The event source mapping's settings it polls with. */
  readonly eventSource: EventSourceSettings;
  close(): Promise<void>;
}

/** Starts the server, creates the queues, and polls until closed. */
export async function startLocalSqs(
  port: number,
  invoke: SqsInvoke,
  onError: (message: string) => void,
  eventSource: EventSourceSettings,
  visibilityTimeoutSeconds: number = LOCAL_SQS.visibilityTimeoutSeconds,
): Promise<LocalSqs> {
  // Loaded here, not at the top: the emulator imports node:sqlite, and Node prints its
  // "SQLite is an experimental feature" warning in any process that loads it, so only a
  // stack started with --sqs should. (The build keeps fauxqs out of the bundle for this.)
  const { startFauxqs } = await import('fauxqs');
  // Queue URLs read http://sqs.<region>.localhost:<port>/...; clients send to `endpoint`.
  const server = await startFauxqs({ port, logger: false });
  const client = new SQSClient({
    endpoint: server.address,
    region: LOCAL_SQS.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const dlq = await client.send(new CreateQueueCommand({ QueueName: LOCAL_SQS.dlqName }));
  const dlqUrl = dlq.QueueUrl ?? '';
  const dlqArn = await arnOf(client, dlqUrl);
  const source = await client.send(
    new CreateQueueCommand({
      QueueName: LOCAL_SQS.queueName,
      Attributes: {
        VisibilityTimeout: String(visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlqArn,
          maxReceiveCount: LOCAL_SQS.maxReceiveCount,
        }),
      },
    }),
  );
  const queueUrl = source.QueueUrl ?? '';
  const sourceArn = await arnOf(client, queueUrl);

  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        await pollOnce(client, queueUrl, sourceArn, invoke, eventSource);
      } catch (error) {
        if (running) onError(`sqs poller: ${error instanceof Error ? error.name : 'Error'}`);
      }
    }
  })();
  return {
    endpoint: server.address,
    queueUrl,
    dlqUrl,
    eventSource,
    close: async () => {
      running = false;
      await loop;
      client.destroy();
      await server.stop();
    },
  };
}

/** One batch gathered, one invocation, one delete of the handled records. */
export async function pollOnce(
  client: SQSClient,
  queueUrl: string,
  sourceArn: string,
  invoke: SqsInvoke,
  eventSource: EventSourceSettings,
): Promise<number> {
  const messages = await gather(client, queueUrl, eventSource);
  if (messages.length === 0) return 0;
  const records = messages.map((message) => sqsRecordOf(message, sourceArn));
  const { batchItemFailures } = await invoke({ Records: records });
  // ReportBatchItemFailures: only the listed records come back; the rest are deleted.
  const failed = new Set(
    eventSource.reportBatchItemFailures
      ? batchItemFailures.map((failure) => failure.itemIdentifier)
      : [],
  );
  const handled = records.filter((record) => !failed.has(record.messageId));
  for (let at = 0; at < handled.length; at += LOCAL_SQS.maxPerReceive) {
    await client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: handled.slice(at, at + LOCAL_SQS.maxPerReceive).map((record, index) => ({
          Id: `d${index}`,
          ReceiptHandle: record.receiptHandle,
        })),
      }),
    );
  }
  return messages.length;
}

/**
 * Receives until the batch is full or its window has passed (at once with no window), as the
 * event source mapping gathers a batch before it invokes.
 */
async function gather(
  client: SQSClient,
  queueUrl: string,
  { batchSize, batchingWindowSeconds }: EventSourceSettings,
): Promise<Message[]> {
  const messages: Message[] = [];
  const closes = Date.now() + batchingWindowSeconds * 1_000;
  do {
    const { Messages = [] } = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: Math.min(LOCAL_SQS.maxPerReceive, batchSize - messages.length),
        WaitTimeSeconds: LOCAL_SQS.waitTimeSeconds,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    messages.push(...Messages);
  } while (messages.length < batchSize && Date.now() < closes);
  return messages;
}

/** A received message as the event source mapping hands it to Lambda. */
export function sqsRecordOf(message: Message, sourceArn: string): SQSRecord {
  const system = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: system.ApproximateReceiveCount ?? '1',
      SentTimestamp: system.SentTimestamp ?? String(Date.now()),
      SenderId: system.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: system.ApproximateFirstReceiveTimestamp ?? '',
      ...(system.MessageGroupId === undefined
        ? {}
        : {
            MessageGroupId: system.MessageGroupId,
            MessageDeduplicationId: system.MessageDeduplicationId,
            SequenceNumber: system.SequenceNumber,
          }),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        {
          dataType: value.DataType ?? 'String',
          ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
          ...(value.BinaryValue === undefined
            ? {}
            : { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }),
          stringListValues: [],
          binaryListValues: [],
        },
      ]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: sourceArn,
    awsRegion: LOCAL_SQS.region,
  };
}

async function arnOf(client: SQSClient, queueUrl: string): Promise<string> {
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  return Attributes?.QueueArn ?? '';
}
