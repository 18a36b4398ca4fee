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
});
