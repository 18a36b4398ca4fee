/**
 * `emq send <queue-url> [body | -] [--queue q] [--id id] [--base64]`: sends one SQS message
 * with the attributes the SQS function reads, so trying the SQS face needs no hand-written
 * event or attribute JSON. The values are sent as given: the function judges them, and a
 * bad one is dead-lettered with its reason (`emq dlq` shows it).
 */
import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import { Command } from 'commander';
import {
  ENCODING_ATTRIBUTE,
  JOB_ID_ATTRIBUTE,
  QUEUE_ATTRIBUTE,
} from '../../functions/shared/sqs-attributes.js';
import { exitCodesText, usageFailure } from '../failures.js';
import type { CommandResult, OutputFlags } from '../output.js';
import type { Session } from '../session.js';
import { parseQueueUrl, QUEUE_URL_SHAPE, sqsClientFor, sqsFailure } from '../sqs-queue.js';

interface SendFlags extends OutputFlags {
  /** `emq-queue`. Default: none (the function's EMQ_DEFAULT_QUEUE). */
  readonly queue?: string | undefined;
  /** `emq-job-id`. Default: none (keyed by the message id). */
  readonly id?: string | undefined;
  /** The body is base64 of the payload (`emq-encoding: base64`). Default false. */
  readonly base64?: boolean | undefined;
  /** FIFO queues: the message group. Default: none. */
  readonly group?: string | undefined;
}

export function sendCommand(session: Session): Command {
  return new Command('send')
    .description('send one message to an SQS queue, with the emq-* attributes')
    .argument('<queue-url>', `the SQS queue URL, ${QUEUE_URL_SHAPE} (npm start -- --sqs prints it)`)
    .argument('[body]', 'the message body; - or a pipe reads stdin')
    .option(
      '--queue <queue>',
      `the ${QUEUE_ATTRIBUTE} attribute (default: the function's EMQ_DEFAULT_QUEUE)`,
    )
    .option('--id <id>', `the ${JOB_ID_ATTRIBUTE} attribute (mint one with \`emq id\`)`)
    .option('--base64', `the body is base64 of the payload (${ENCODING_ATTRIBUTE}: base64)`)
    .option('--group <group>', 'MessageGroupId, for a FIFO queue')
    .option('--json', 'print one JSON line')
    .addHelpText(
      'after',
      `\nThe attribute values are sent as given; the SQS function judges them, and dead-letters\na record it refuses with the reason (see \`emq dlq\`). Prints the message id.\n${exitCodesText('sent', 'failed')}`,
    )
    .action((queueUrl: string, body: string | undefined, flags: SendFlags) =>
      session.run(flags, () => send(session, queueUrl, body, flags)),
    );
}

async function send(
  session: Session,
  queueUrl: string,
  body: string | undefined,
  flags: SendFlags,
): Promise<CommandResult> {
  // Checked before stdin is read or the SDK loads: a typo costs nothing.
  const queue = parseQueueUrl('<queue-url>', queueUrl);
  if (queue.fifo && flags.group === undefined) {
    throw usageFailure('<queue-url> names a FIFO queue (.fifo), which needs --group <group>.');
  }
  const text =
    body === undefined || body === '-' ? (await session.io.readStdin()).toString('utf8') : body;
  const attributes: Record<string, MessageAttributeValue> = {};
  if (flags.queue !== undefined) attributes[QUEUE_ATTRIBUTE] = stringAttribute(flags.queue);
  if (flags.id !== undefined) attributes[JOB_ID_ATTRIBUTE] = stringAttribute(flags.id);
  if (flags.base64 === true) attributes[ENCODING_ATTRIBUTE] = stringAttribute('base64');
  const { SendMessageCommand } = await import('@aws-sdk/client-sqs');
  const client = await sqsClientFor(queue);
  try {
    const sent = await client.send(
      new SendMessageCommand({
        QueueUrl: queue.url,
        MessageBody: text,
        MessageAttributes: attributes,
        ...(flags.group === undefined ? {} : { MessageGroupId: flags.group }),
        // FIFO queues want a deduplication id (unless content-based): one per send, so a
        // second send of the same body is a second message, as it is on a standard queue.
        ...(queue.fifo ? { MessageDeduplicationId: `${Date.now()}-${Math.random()}` } : {}),
      }),
    );
    return {
      json: { messageId: sent.MessageId, ...(flags.id === undefined ? {} : { id: flags.id }) },
      text: `${sent.MessageId ?? ''}\n`,
    };
  } catch (error) {
    throw sqsFailure('EMQ_SQS_SEND_FAILED', 'sqs:SendMessage', error);
  } finally {
    client.destroy();
  }
}

function stringAttribute(value: string): MessageAttributeValue {
  return { DataType: 'String', StringValue: value };
}
