import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetContainer } from '../../functions/shared/connection.js';
import { setLogSink } from '../../functions/shared/log.js';
import { handler } from '../../functions/sqs/handler.js';
import { sqsEvent, sqsLambdaContext, sqsRecord } from '../fixtures/sqs/records.js';

let lines: Record<string, unknown>[] = [];
let restore: ((line: string) => void) | undefined;
const saved = process.env.EMQ_EXECUTOR;

beforeEach(async () => {
  lines = [];
  restore = setLogSink((line) => lines.push(JSON.parse(line)));
  await resetContainer();
});

afterEach(async () => {
  if (restore !== undefined) setLogSink(restore);
  if (saved === undefined) delete process.env.EMQ_EXECUTOR;
  else process.env.EMQ_EXECUTOR = saved;
  await resetContainer();
});

describe('the SQS handler', () => {
  it('retries every record, and says why once, when a setting is invalid', async () => {
    process.env.EMQ_EXECUTOR = 'quantum';
    const batch = [sqsRecord({ body: 'a' }), sqsRecord({ body: 'b' })];
    const response = await handler(sqsEvent(batch), sqsLambdaContext());
    expect(response).toEqual({
      batchItemFailures: batch.map(({ messageId }) => ({ itemIdentifier: messageId })),
    });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'error',
        message: 'sqs configuration invalid',
        error: 'ConfigError',
        errorCode: 'EMQ_CONFIG',
      }),
    ]);
  });

  it('throws, naming no record, when a setting is invalid and a record has no messageId', async () => {
    process.env.EMQ_EXECUTOR = 'quantum';
    const { messageId: _, ...nameless } = sqsRecord({ body: 'a' });
    const event = sqsEvent([sqsRecord({ body: 'b' }), nameless as SQSRecord]);
    // Nothing was written, and an answer could not name the record: the event comes back whole.
    await expect(handler(event, sqsLambdaContext())).rejects.toMatchObject({ code: 'EMQ_CONFIG' });
  });

  it('throws for an event that is not an SQS event, whatever the configuration', async () => {
    process.env.EMQ_EXECUTOR = 'quantum';
    await expect(
      handler({ Records: [null] } as unknown as SQSEvent, sqsLambdaContext()),
    ).rejects.toMatchObject({ code: 'EMQ_INVALID_REQUEST' });
  });
});
