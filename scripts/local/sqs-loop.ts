/**
 * The local SQS loop (`npm start -- --sqs`): an SQS-compatible server from npm (fauxqs), a
 * source queue and a DLQ with a redrive policy, and a poller that does what Lambda's event
 * source mapping does: receive batches (MaxNumberOfMessages 10, all attributes), invoke the
 * real SQS handler, delete what it handled, and leave its batch item failures to come back
 * after the visibility timeout, until the redrive policy moves them to the DLQ.
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

/** The event source mapping's settings this loop copies. */
export const LOCAL_SQS = {
  region: 'us-east-1',
  queueName: 'emq-local',
  dlqName: 'emq-local-dlq',
  batchSize: 10,
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
  close(): Promise<void>;
}

/** Starts the server, creates the queues, and polls until closed. */
export async function startLocalSqs(
  port: number,
  invoke: SqsInvoke,
  onError: (message: string) => void,
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
        await pollOnce(client, queueUrl, sourceArn, invoke);
      } catch (error) {
        if (running) onError(`sqs poller: ${error instanceof Error ? error.name : 'Error'}`);
      }
    }
  })();
  return {
    endpoint: server.address,
    queueUrl,
    dlqUrl,
    close: async () => {
      running = false;
      await loop;
      client.destroy();
      await server.stop();
    },
  };
}

/** One receive, one invocation, one delete of the handled records. */
export async function pollOnce(
  client: SQSClient,
  queueUrl: string,
  sourceArn: string,
  invoke: SqsInvoke,
): Promise<number> {
  const { Messages = [] } = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: LOCAL_SQS.batchSize,
      WaitTimeSeconds: LOCAL_SQS.waitTimeSeconds,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
  );
  if (Messages.length === 0) return 0;
  const records = Messages.map((message) => recordOf(message, sourceArn));
  const { batchItemFailures } = await invoke({ Records: records });
  // ReportBatchItemFailures: only the listed records come back; the rest are deleted.
  const failed = new Set(batchItemFailures.map((failure) => failure.itemIdentifier));
  const handled = records.filter((record) => !failed.has(record.messageId));
  if (handled.length > 0) {
    await client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: handled.map((record, index) => ({
          Id: `d${index}`,
          ReceiptHandle: record.receiptHandle,
        })),
      }),
    );
  }
  return Messages.length;
}

/** A received message as the event source mapping hands it to Lambda. */
export function recordOf(message: Message, sourceArn: string): SQSRecord {
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
