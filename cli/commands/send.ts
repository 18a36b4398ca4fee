/**
 * `emq send <queue-url> [body | -] [--queue q] [--id id] [--base64]`: sends one SQS message
 * with the attributes the SQS function reads, so trying the SQS face needs no hand-written
 * event or attribute JSON. The SDK's own configuration applies (region, credentials,
 * AWS_ENDPOINT_URL_SQS); a loopback queue URL (the local stack's) needs none.
 */
import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import { Command } from 'commander';
import { CliFailure } from '../failures.js';
import type { CommandResult, OutputFlags } from '../output.js';
import type { Session } from '../session.js';

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
    .argument('<queue-url>', 'the SQS queue URL (npm start -- --sqs prints it)')
    .argument('[body]', 'the message body; - or a pipe reads stdin')
    .option(
      '--queue <queue>',
      "the emq-queue attribute (default: the function's EMQ_DEFAULT_QUEUE)",
    )
    .option('--id <id>', 'the emq-job-id attribute (mint one with `emq id`)')
    .option('--base64', 'the body is base64 of the payload (emq-encoding: base64)')
    .option('--group <group>', 'MessageGroupId, for a FIFO queue')
    .option('--json', 'print one JSON line')
    .addHelpText('after', '\nPrints the message id. Exit codes: 0 sent, 1 failed, 2 usage.')
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
  const local = localEndpoint(queueUrl);
  const text =
    body === undefined || body === '-' ? (await session.io.readStdin()).toString('utf8') : body;
  const attributes: Record<string, MessageAttributeValue> = {};
  if (flags.queue !== undefined) attributes['emq-queue'] = stringAttribute(flags.queue);
  if (flags.id !== undefined) attributes['emq-job-id'] = stringAttribute(flags.id);
  if (flags.base64 === true) attributes['emq-encoding'] = stringAttribute('base64');
  const { SQSClient, SendMessageCommand } = await import('@aws-sdk/client-sqs');
  const client = new SQSClient(
    local === undefined
      ? {}
      : {
          endpoint: local,
          region: 'us-east-1',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        },
  );
  try {
    const sent = await client.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: text,
        MessageAttributes: attributes,
        ...(flags.group === undefined
          ? {}
          : {
              MessageGroupId: flags.group,
              MessageDeduplicationId: `${Date.now()}-${Math.random()}`,
            }),
      }),
    );
    return {
      json: { messageId: sent.MessageId, ...(flags.id === undefined ? {} : { id: flags.id }) },
      text: `${sent.MessageId ?? ''}\n`,
    };
  } catch (error) {
    const name = error instanceof Error ? error.name : 'Error';
    throw new CliFailure(
      'EMQ_SQS_SEND_FAILED',
      `SQS refused or did not answer the message (${name}). Check the queue URL, and the region and credentials of the AWS SDK (a local URL needs none).`,
    );
  } finally {
    client.destroy();
  }
}

function stringAttribute(value: string): MessageAttributeValue {
  return { DataType: 'String', StringValue: value };
}

/**
 * The loopback endpoint of a local queue URL (`http://sqs.us-east-1.localhost:4566/...`, the
 * local stack's, or 127.0.0.1), sent to directly: `*.localhost` need not resolve everywhere.
 */
function localEndpoint(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname;
    const local = host === '127.0.0.1' || host === 'localhost' || host.endsWith('.localhost');
    return local ? `${parsed.protocol}//127.0.0.1:${parsed.port || '80'}` : undefined;
  } catch {
    return undefined;
  }
}
