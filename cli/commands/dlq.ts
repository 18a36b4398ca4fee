/**
 * `emq dlq <queue-url> [--max N]`: peeks at a dead-letter queue and shows why each message is
 * there, from the reason attributes the SQS function adds to a dead letter, without the AWS
 * CLI. A peek is a ReceiveMessage with VisibilityTimeout 0: nothing is deleted, and nothing
 * is hidden from the next reader.
 */
import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import { Command, InvalidArgumentError } from 'commander';
import {
  ERROR_CODE_ATTRIBUTE,
  ERROR_DETAIL_ATTRIBUTE,
  SOURCE_MESSAGE_ID_ATTRIBUTE,
} from '../../functions/shared/sqs-attributes.js';
import { exitCodesText } from '../failures.js';
import type { CommandResult, OutputFlags } from '../output.js';
import type { Session } from '../session.js';
import { parseQueueUrl, QUEUE_URL_SHAPE, sqsClientFor, sqsFailure } from '../sqs-queue.js';

interface DlqFlags extends OutputFlags {
  /** How many messages to show at most. Default 10. */
  readonly max: number;
}

export const DEFAULT_MAX = 10;
export const MAX_MAX = 100;
/** SQS's own limit on messages per receive. */
const PER_RECEIVE = 10;
/** Characters of a body shown. */
export const EXCERPT_CHARS = 120;
/** Long polling asks every SQS server, where a short poll may miss a small queue's messages. */
const WAIT_SECONDS = 1;

const REASONS = [ERROR_CODE_ATTRIBUTE, ERROR_DETAIL_ATTRIBUTE, SOURCE_MESSAGE_ID_ATTRIBUTE];

/** One dead letter as the command shows it. */
export interface DeadLetter {
  readonly messageId: string;
  /** emq-error-code, emq-error-detail, emq-source-message-id; absent on a message the function did not send. */
  readonly errorCode: string | undefined;
  readonly errorDetail: string | undefined;
  readonly sourceMessageId: string | undefined;
  /** The other emq-* attributes (emq-queue, emq-job-id, emq-encoding, or a mistyped one), by name. */
  readonly attributes: Readonly<Record<string, string>>;
  /** The start of the body, and its full length in characters. */
  readonly body: string;
  readonly bodyChars: number;
  /** SentTimestamp, as ISO 8601. */
  readonly sentAt: string | undefined;
  /** ApproximateReceiveCount, this peek included. */
  readonly receiveCount: number | undefined;
}

export function dlqCommand(session: Session): Command {
  return new Command('dlq')
    .description(
      "peek at a dead-letter queue: each message's id, the reason and the emq-* attributes",
    )
    .argument('<queue-url>', `the DLQ's URL, ${QUEUE_URL_SHAPE} (npm start -- --sqs prints it)`)
    .option(
      '--max <n>',
      `show at most n messages (1 to ${MAX_MAX}; default ${DEFAULT_MAX})`,
      maxOf,
      DEFAULT_MAX,
    )
    .option('--json', 'print one JSON line')
    .addHelpText(
      'after',
      `
A peek takes nothing: it receives with VisibilityTimeout 0, so no message is deleted or hidden
from the next reader (each receive still counts in ApproximateReceiveCount, which a redrive
policy on the DLQ itself would act on). For each message: its id, the reason the SQS function
added (${REASONS.join(', ')}), its other emq-* attributes and
the first ${EXCERPT_CHARS} characters of its body. SQS hands out at most ${PER_RECEIVE} messages per receive and
may hand the same ones out again, so on a large DLQ this is a sample, not a listing.
${exitCodesText('peeked (also when the DLQ is empty)', 'failed')}`,
    )
    .action((queueUrl: string, flags: DlqFlags) => session.run(flags, () => peek(queueUrl, flags)));
}

function maxOf(value: string): number {
  const max = Number(value);
  if (!/^\d+$/.test(value) || max < 1 || max > MAX_MAX) {
    throw new InvalidArgumentError(`Expected a whole number from 1 to ${MAX_MAX}.`);
  }
  return max;
}

async function peek(queueUrl: string, flags: DlqFlags): Promise<CommandResult> {
  const queue = parseQueueUrl('<queue-url>', queueUrl);
  const { ReceiveMessageCommand } = await import('@aws-sdk/client-sqs');
  const client = await sqsClientFor(queue);
  const seen = new Map<string, Message>();
  try {
    // With nothing hidden, a receive can return messages already seen: stop at the first
    // that brings nothing new.
    while (seen.size < flags.max) {
      const { Messages = [] } = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queue.url,
          MaxNumberOfMessages: Math.min(PER_RECEIVE, flags.max - seen.size),
          VisibilityTimeout: 0,
          WaitTimeSeconds: WAIT_SECONDS,
          MessageAttributeNames: ['All'],
          MessageSystemAttributeNames: ['All'],
        }),
      );
      const fresh = Messages.filter(
        (message) => message.MessageId !== undefined && !seen.has(message.MessageId),
      );
      for (const message of fresh) seen.set(message.MessageId ?? '', message);
      if (fresh.length === 0) break;
    }
  } catch (error) {
    throw sqsFailure('EMQ_SQS_RECEIVE_FAILED', 'sqs:ReceiveMessage', error);
  } finally {
    client.destroy();
  }
  const letters = [...seen.values()].slice(0, flags.max).map(deadLetterOf);
  return {
    json: { queueUrl: queue.url, messages: letters },
    text: letters.map(textOf).join('\n'),
    note: noteOf(letters.length, flags.max),
  };
}

/** A received message, as the command shows it. */
export function deadLetterOf(message: Message): DeadLetter {
  const byName = new Map<string, string>();
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    const lower = name.toLowerCase();
    if (!lower.startsWith('emq-')) continue;
    const shown = attributeText(value);
    if (REASONS.includes(lower)) byName.set(lower, shown);
    else attributes[name] = shown;
  }
  const body = message.Body ?? '';
  const sent = Number(message.Attributes?.SentTimestamp);
  const received = Number(message.Attributes?.ApproximateReceiveCount);
  return {
    messageId: message.MessageId ?? '',
    errorCode: byName.get(ERROR_CODE_ATTRIBUTE),
    errorDetail: byName.get(ERROR_DETAIL_ATTRIBUTE),
    sourceMessageId: byName.get(SOURCE_MESSAGE_ID_ATTRIBUTE),
    attributes,
    body: body.length > EXCERPT_CHARS ? `${body.slice(0, EXCERPT_CHARS)}…` : body,
    bodyChars: body.length,
    sentAt: Number.isFinite(sent) && sent > 0 ? new Date(sent).toISOString() : undefined,
    receiveCount: Number.isSafeInteger(received) ? received : undefined,
  };
}

function attributeText(value: MessageAttributeValue): string {
  if (value.StringValue !== undefined) return value.StringValue;
  if (value.BinaryValue !== undefined) {
    return `(binary, base64) ${Buffer.from(value.BinaryValue).toString('base64')}`;
  }
  return '(no value)';
}

/** One block per message; values are quoted where they could hold line breaks. */
export function textOf(letter: DeadLetter): string {
  const rows: [string, string][] = [
    ['message', letter.messageId],
    [ERROR_CODE_ATTRIBUTE, letter.errorCode ?? '(none: not dead-lettered by the SQS function)'],
  ];
  if (letter.errorDetail !== undefined) rows.push([ERROR_DETAIL_ATTRIBUTE, letter.errorDetail]);
  if (letter.sourceMessageId !== undefined) {
    rows.push([SOURCE_MESSAGE_ID_ATTRIBUTE, letter.sourceMessageId]);
  }
  for (const [name, value] of Object.entries(letter.attributes)) rows.push([name, value]);
  rows.push(['body', `${JSON.stringify(letter.body)} (${letter.bodyChars} characters)`]);
  if (letter.sentAt !== undefined) rows.push(['sent', letter.sentAt]);
  if (letter.receiveCount !== undefined) rows.push(['received', `${letter.receiveCount} times`]);
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows.map(([name, value]) => `${name.padEnd(width)}  ${oneLine(value)}\n`).join('');
}

function oneLine(value: string): string {
  return /[\r\n]/.test(value) ? JSON.stringify(value) : value;
}

function noteOf(shown: number, max: number): string {
  if (shown === 0) return 'No message in the DLQ (peeked; nothing was taken).';
  const more = shown === max ? `; there may be more: raise --max (up to ${MAX_MAX})` : '';
  return `${shown} message${shown === 1 ? '' : 's'} peeked; nothing was taken${more}.`;
}
