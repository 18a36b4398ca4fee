/**
 * The SQS face's Lambda entry point: a plain async function over handleSqsBatch. No middy: it
 * would add only its early timeout, and a batch that runs out of time fails whole either way
 * (every record comes back for another receive), while its timer and race cost every batch.
 * The event source mapping must enable ReportBatchItemFailures (FunctionResponseTypes), or SQS
 * ignores the partial batch response and retries whole batches.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { containerAdmission } from '../shared/connection.js';
import { errorFields, log } from '../shared/log.js';
import { handleSqsBatch } from './batch.js';
import { createSqsClient } from './sqs-client.js';

// One SQS client per container, created with the first dead letter.
let sqs: Promise<SQSClient> | undefined;

function sqsClient(): Promise<SQSClient> {
  sqs ??= createSqsClient();
  return sqs;
}

/** Lambda passes the context too; the batch's time is bounded by the command timeouts instead. */
export async function handler(event: SQSEvent, _context?: Context): Promise<SQSBatchResponse> {
  let admission: ReturnType<typeof containerAdmission>;
  try {
    admission = containerAdmission();
  } catch (error) {
    // A bad setting fails every record alike: retry them all rather than dead-letter them.
    log('error', 'sqs configuration invalid', errorFields(error));
    return {
      batchItemFailures: (event.Records ?? []).map(({ messageId }) => ({
        itemIdentifier: messageId,
      })),
    };
  }
  return handleSqsBatch(event, {
    admission,
    sqs: { send: async (command) => (await sqsClient()).send(command) },
  });
}
