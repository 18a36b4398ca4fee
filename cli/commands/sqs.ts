/**
 * `emq sqs <event.json>`: runs the built SQS function (dist/functions/sqs/index.mjs) on an SQS
 * event, here, against the configured Valkey, and prints its answer (the batch item failures).
 * It runs as Lambda runs it: in a process of its own whose environment is the settings, so the
 * flags reach it without this process's environment being touched.
 */
import { readFile } from 'node:fs/promises';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { Command } from 'commander';
import { type ConnectionFlags, configFrom, withConnectionFlags } from '../connection.js';
import { CliFailure, EXIT_FAILED, EXIT_OK, EXIT_USAGE, exitCodesText } from '../failures.js';
import { runBundle } from '../function-bundle.js';
import type { CommandResult, OutputFlags } from '../output.js';
import type { Session } from '../session.js';

type SqsFlags = ConnectionFlags & OutputFlags;

export function sqsCommand(session: Session): Command {
  return withConnectionFlags(
    new Command('sqs')
      .description('run the SQS function on an event file and print its answer')
      .argument('<event>', 'a JSON SQS event ({"Records": [...]}), or - to read it from stdin'),
  )
    .addHelpText(
      'after',
      `\nThe function reads every EMQ_* variable (EMQ_DEFAULT_QUEUE, EMQ_DLQ_URL, ...) as in Lambda;\nits log lines go to stderr. Prints {"batchItemFailures": [...]}.\n${exitCodesText('every record handled', 'some records would be retried, or it failed')}`,
    )
    .action((file: string, flags: SqsFlags) =>
      session.run(flags, () => runSqs(session, file, flags)),
    );
}

async function runSqs(session: Session, file: string, flags: SqsFlags): Promise<CommandResult> {
  const event = parseEvent(await readEvent(session, file));
  // The settings the flags describe, checked here; the function reads them from its environment.
  const config = configFrom(session.io.env, flags);
  const answer = (await runBundle(
    'sqs',
    event,
    {
      ...session.io.env,
      EMQ_URL: config.urls.join(','),
      EMQ_CLUSTER: String(config.cluster),
    },
    (line) => session.io.err(`${line}\n`),
  )) as SQSBatchResponse | undefined;
  const failures = answer?.batchItemFailures ?? [];
  const result = { batchItemFailures: failures };
  return {
    json: result,
    text: `${JSON.stringify(result, null, 2)}\n`,
    note:
      failures.length > 0
        ? `${failures.length} of ${event.Records.length} records would be retried by SQS.`
        : undefined,
    exitCode: failures.length > 0 ? EXIT_FAILED : EXIT_OK,
  };
}

async function readEvent(session: Session, file: string): Promise<string> {
  if (file === '-') return (await session.io.readStdin()).toString('utf8');
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as { code?: unknown }).code;
    throw new CliFailure(
      'EMQ_USAGE',
      `Cannot read the event file ${JSON.stringify(file)} (${typeof reason === 'string' ? reason : 'unreadable'}).`,
      EXIT_USAGE,
    );
  }
}

function parseEvent(text: string): SQSEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid('it is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || !('Records' in parsed)) {
    throw invalid('it has no "Records" list');
  }
  if (!Array.isArray(parsed.Records)) throw invalid('its "Records" is not a list');
  // The handler reads each record defensively, as it must for any event Lambda hands it.
  return parsed as SQSEvent;
}

function invalid(reason: string): CliFailure {
  return new CliFailure(
    'EMQ_INVALID_EVENT',
    `The event is not an SQS event: ${reason}. Expected {"Records": [{"messageId", "body", ...}]}.`,
    EXIT_USAGE,
  );
}
