/**
 * The SQS face's Lambda entry point: a thin middy stack over handleSqsBatch. middy's default
 * early timeout is why it is here: a batch still running at the invocation's deadline fails
 * (every record comes back) while the container lives on, where Lambda's own timeout resets
 * the execution environment and costs the next batch a cold start. The event source mapping
 * must enable ReportBatchItemFailures (FunctionResponseTypes), or SQS ignores the partial
 * batch response and retries whole batches.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { containerAdmission } from '../shared/connection.js';
import { errorFields, log } from '../shared/log.js';
import { handleSqsBatch } from './batch.js';
import { messageIdOf, recordsOf } from './event.js';
import { createSqsClient } from './sqs-client.js';

// One SQS client per container, created with the first dead letter.
let sqs: Promise<SQSClient> | undefined;

function sqsClient(): Promise<SQSClient> {
  sqs ??= createSqsClient();
  return sqs;
}

/** Leaves middy's early timeout (its default, 5 ms before the deadline) time to answer. */
const SEND_BEFORE_TIMEOUT_MS = 250;

export const handler = middy<SQSEvent, SQSBatchResponse>().handler(async (event, context) => {
  const deadlineMs = Date.now() + context.getRemainingTimeInMillis() - SEND_BEFORE_TIMEOUT_MS;
  let admission: ReturnType<typeof containerAdmission>;
  try {
    admission = containerAdmission();
  } catch (error) {
    // A bad setting fails every record alike: retry them all rather than dead-letter them.
    log('error', 'sqs configuration invalid', errorFields(error));
    const messageIds = recordsOf(event).map(messageIdOf);
    // Nothing is written without a configuration, and a record without a messageId cannot be
    // named for a retry: the event is refused whole, to come back whole (event.ts).
    const named = messageIds.filter((id): id is string => id !== undefined);
    if (named.length < messageIds.length) throw error;
    return { batchItemFailures: named.map((itemIdentifier) => ({ itemIdentifier })) };
  }
  return handleSqsBatch(event, {
    admission,
    sqs: { send: async (command) => (await sqsClient()).send(command) },
    deadlineMs,
  });
});
