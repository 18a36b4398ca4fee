/**
 * SQS for tests: the emulator from npm the local stack runs (fauxqs, `npm start -- --sqs`),
 * in this process, one per test file; a fresh DLQ per test; a real SQSClient pointed at it; and
 * a reader that receives what the DLQ holds, with every attribute, so a test asserts on what
 * SQS stored and answered, not on what a fake made of the request.
 */
import { randomBytes } from 'node:crypto';
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SendMessageBatchCommandInput,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, beforeEach } from 'vitest';

export const SQS_REGION = 'us-east-1';

/** A message as the DLQ holds it, received with all its attributes. */
export interface StoredLetter {
  /** The queue it was received from. */
  readonly queueUrl: string;
  readonly messageId: string;
  readonly body: string;
  /** Attribute name to its string value, or its bytes for a binary attribute. */
  readonly attributes: Readonly<Record<string, string | Buffer>>;
  /** FIFO only. */
  readonly groupId?: string | undefined;
  /** FIFO only. */
  readonly deduplicationId?: string | undefined;
}

export interface Dlq {
  readonly url: string;
  /**
   * Every letter the DLQ has received so far, in the order SQS handed them out: what it still
   * holds is received (all attributes) and deleted until it answers empty, and kept here.
   */
  letters(): Promise<readonly StoredLetter[]>;
}

export interface QueueOptions {
  /** A `.fifo` queue (no content-based deduplication). Default standard. */
  readonly fifo?: boolean;
  /** More queue attributes, e.g. MaximumMessageSize. */
  readonly attributes?: Readonly<Record<string, string>>;
}

export interface Sqs {
  /** Where SDKs and the CLI send: AWS_ENDPOINT_URL_SQS. */
  readonly endpoint: string;
  /** A real client: signs, serialises and checks MD5s as in a function. */
  readonly client: SQSClient;
  /** Every SendMessageBatch request the client sent, as sent (since the test began, in useSqs). */
  readonly requests: SendMessageBatchCommandInput[];
  /** A new queue with a name no other call returns. */
  queue(options?: QueueOptions): string;
  /** A new queue and its reader. */
  dlq(options?: QueueOptions): Dlq;
  stop(): Promise<void>;
}

/** Starts an emulator on a free port. */
export async function startSqs(): Promise<Sqs> {
  const server = await startFauxqs({ port: 0, logger: false, defaultRegion: SQS_REGION });
  const client = new SQSClient({
    endpoint: server.address,
    region: SQS_REGION,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // As the function's client does when an endpoint is configured (functions/sqs/sqs-client.ts).
    useQueueUrlAsEndpoint: false,
  });
  const requests: SendMessageBatchCommandInput[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'SendMessageBatchCommand') {
        requests.push(args.input as SendMessageBatchCommandInput);
      }
      return next(args);
    },
    { step: 'initialize', name: 'recordSendMessageBatch' },
  );
  const queue = (options: QueueOptions = {}) => {
    const name = `emq-test-${randomBytes(6).toString('hex')}${options.fifo ? '.fifo' : ''}`;
    const attributes = { ...(options.fifo ? { FifoQueue: 'true' } : {}), ...options.attributes };
    return server.createQueue(name, { attributes }).queueUrl;
  };
  return {
    endpoint: server.address,
    client,
    requests,
    queue,
    dlq: (options) => dlqAt(client, queue(options)),
    stop: async () => {
      client.destroy();
      await server.stop();
    },
  };
}

/** One emulator for the file, started before its tests; `requests` is emptied before each. */
export function useSqs(): () => Sqs {
  let sqs: Sqs | undefined;
  beforeAll(async () => {
    sqs = await startSqs();
  });
  beforeEach(() => {
    sqs?.requests.splice(0);
  });
  afterAll(() => sqs?.stop());
  return () => {
    if (sqs === undefined) throw new Error('the SQS emulator has not started');
    return sqs;
  };
}

function dlqAt(client: SQSClient, url: string): Dlq {
  const received: StoredLetter[] = [];
  return {
    url,
    letters: async () => {
      // Sends are answered once stored, and nothing is delayed: an empty answer means empty.
      // A FIFO queue hands out one message per group until it is deleted, hence the loop.
      for (;;) {
        const { Messages = [] } = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 0,
            MessageAttributeNames: ['All'],
            MessageSystemAttributeNames: ['All'],
          }),
        );
        if (Messages.length === 0) return [...received];
        received.push(...Messages.map((message) => storedLetter(url, message)));
        await client.send(
          new DeleteMessageBatchCommand({
            QueueUrl: url,
            Entries: Messages.map((message, index) => ({
              Id: `d${index}`,
              ReceiptHandle: message.ReceiptHandle,
            })),
          }),
        );
      }
    },
  };
}

function storedLetter(queueUrl: string, message: Message): StoredLetter {
  return {
    queueUrl,
    messageId: message.MessageId ?? '',
    body: message.Body ?? '',
    attributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        value.StringValue ?? Buffer.from(value.BinaryValue ?? new Uint8Array()),
      ]),
    ),
    groupId: message.Attributes?.MessageGroupId,
    deduplicationId: message.Attributes?.MessageDeduplicationId,
  };
}
