/**
 * The SQS face's Lambda entry point, over handleSqsBatch. The batch stops sending at its
 * deadline and answers which records come back; should it still be running just before the
 * invocation's timeout, the invocation fails (every record comes back) while the container
 * lives on, where Lambda's own timeout resets the execution environment and costs the next
 * batch a cold start. The event source mapping must enable ReportBatchItemFailures
 * (FunctionResponseTypes), or SQS ignores the partial batch response and retries whole batches.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { UnavailableError } from '../../src/outcomes/outcomes.js';
import { containerAdmission } from '../shared/connection.js';
import { answerBy, deadlineOf } from '../shared/deadline.js';
import { errorFields, log } from '../shared/log.js';
import { handleSqsBatch } from './batch.js';
import { messageIdOf, sqsRecordsOf } from './event.js';
import { createSqsClient } from './sqs-client.js';

// One SQS client per container, created with the first dead letter.
let sqs: Promise<SQSClient> | undefined;

function sqsClient(): Promise<SQSClient> {
  sqs ??= createSqsClient();
  return sqs;
}

/** The batch's deadline: time left after it to answer which records come back. */
const SEND_BEFORE_TIMEOUT_MS = 250;
/** The last moment to fail the invocation rather than have Lambda kill it. */
const FAIL_BEFORE_TIMEOUT_MS = 5;

export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  const deadlineMs = deadlineOf(context, SEND_BEFORE_TIMEOUT_MS);
  let admission: ReturnType<typeof containerAdmission>;
  try {
    admission = containerAdmission();
  } catch (error) {
    // A bad setting fails every record alike: retry them all rather than dead-letter them.
    log('error', 'sqs configuration invalid', errorFields(error));
    const messageIds = sqsRecordsOf(event).map(messageIdOf);
    // Nothing is written without a configuration, and a record without a messageId cannot be
    // named for a retry: the event is refused whole, to come back whole (event.ts).
    const named = messageIds.filter((id): id is string => id !== undefined);
    if (named.length < messageIds.length) throw error;
    return { batchItemFailures: named.map((itemIdentifier) => ({ itemIdentifier })) };
  }
  return answerBy(
    deadlineOf(context, FAIL_BEFORE_TIMEOUT_MS),
    handleSqsBatch(event, {
      admission,
      sqs: { send: async (command) => (await sqsClient()).send(command) },
      deadlineMs,
    }),
    () => {
      throw new UnavailableError(
        'The SQS batch was still running at the function timeout: every record comes back. Raise the function timeout or lower the batch size.',
        // Its writes were sent and their replies not read: each may have landed.
        { written: 'maybe' },
      );
    },
  );
}
