// The SQS face at its invocation's deadline, on a real server whose writes are held (CLIENT
// PAUSE WRITE) past it: the handler answers before Lambda's timeout would, every record comes
// back, and the records delivered again after the hold make one job each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetContainer } from '../../functions/shared/connection.js';
import { type LogSink, setLogSink } from '../../functions/shared/log.js';
import { handler } from '../../functions/sqs/handler.js';
import { clearEmqEnv, configureContainer } from '../fixtures/http/invoke.js';
import { redelivered, sqsEvent, sqsLambdaContext, sqsRecord } from '../fixtures/sqs/records.js';
import { jobRowsOn, startFencedServer } from '../support/emq.js';
import { randomQueue, type ServerHandle } from '../support/servers.js';

let server: ServerHandle;
let previousSink: LogSink;

beforeAll(async () => {
  previousSink = setLogSink(() => {});
  server = await startFencedServer();
  // A command timeout far past the invocation's time: only the deadline can end the wait.
  await configureContainer(server, { EMQ_COMMAND_TIMEOUT_MS: '5000' });
});

afterAll(async () => {
  await resetContainer();
  setLogSink(previousSink);
  clearEmqEnv();
  await server?.stop();
});

describe('the SQS handler at its deadline', () => {
  it('gives every record back before the timeout, and their redelivery makes one job each', async () => {
    const queue = randomQueue('sqs-deadline');
    const records = ['a', 'b'].map((body) => sqsRecord({ body, queue }));
    // The connection is open before the hold, so the batch's writes are what is held.
    const warm = sqsRecord({ body: 'warm', queue: randomQueue('sqs-deadline-warm') });
    expect(await handler(sqsEvent([warm]), sqsLambdaContext())).toEqual({ batchItemFailures: [] });
    const admin = await server.client();
    try {
      await admin.call('CLIENT', 'PAUSE', '3000', 'WRITE');
      // The invocation fails, retryably, so SQS gives every record back (a partial batch
      // response could not say more: no record's outcome is known).
      await expect(handler(sqsEvent(records), sqsLambdaContext(600))).rejects.toMatchObject({
        code: 'EMQ_UNAVAILABLE',
        retryable: true,
        written: 'maybe',
      });
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
      admin.disconnect();
    }
    // The held writes land after the invocation gave up on them.
    await expect.poll(() => jobRowsOn([server], queue), { timeout: 10_000 }).toBe(2);
    const again = await handler(
      sqsEvent(records.map((record) => redelivered(record))),
      sqsLambdaContext(),
    );
    expect(again).toEqual({ batchItemFailures: [] });
    expect(await jobRowsOn([server], queue)).toBe(2);
  });
});
