// ElastiCache IAM authentication end to end on a real valkey-server playing ElastiCache's
// part: the function's user accepts exactly the token the function should sign at the fake
// clock's time, so an unrenewed or badly signed token is refused as ElastiCache would refuse it.
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/http/handler.js';
import { containerConnection, resetContainer } from '../../functions/shared/connection.js';
import { setIamSessionOptions } from '../../functions/shared/iam-session.js';
import { signIamToken, TOKEN_REFRESH_AFTER_MS } from '../../functions/shared/iam-token.js';
import { type LogSink, setLogSink } from '../../functions/shared/log.js';
import { handleSqsBatch } from '../../functions/sqs/batch.js';
import { installFence } from '../../src/index.js';
import { fixture } from '../fixtures/http/events.js';
import {
  clearEmqEnv,
  configureContainer,
  invoke as invokeHandler,
} from '../fixtures/http/invoke.js';
import { fakeSqs } from '../fixtures/sqs/fake-sqs.js';
import { sqsEvent, sqsRecord } from '../fixtures/sqs/records.js';
import { connectTo, jobsOf } from '../support/emq.js';
import { digestOf, randomQueue, type ServerHandle, startStandalone } from '../support/servers.js';
import { waitFor } from '../support/wait.js';

const ADMIN = { username: 'admin', password: 'admin-password-for-tests' };
const TARGET = {
  userId: 'emq-iam',
  cacheName: 'emq-test-cache',
  region: 'eu-west-1',
  serverless: false,
};
// AWS's documented example key pair: fixed credentials, no account behind them.
const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const MINUTE = 60_000;

let now = Date.parse('2026-12-01T12:00:00Z');
let signingFails = false;
let server: ServerHandle;
let admin: Valkey;
const logLines: string[] = [];
let previousSink: LogSink;

/** The server accepts only the token signed at `at` for the user, as ElastiCache would. */
async function acceptTokenAt(at: number): Promise<void> {
  const token = await signIamToken(TARGET, CREDENTIALS, new Date(at));
  await admin.call('ACL', 'SETUSER', TARGET.userId, 'on', 'resetpass', `>${token}`);
}

async function authCalls(): Promise<number> {
  const stats = await admin.info('commandstats');
  return Number(/cmdstat_auth:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

async function functionClients(): Promise<number> {
  const list = String(await admin.call('CLIENT', 'LIST'));
  return list.split('\n').filter((line) => line.includes(` user=${TARGET.userId} `)).length;
}

async function post(queue: string) {
  return invokeHandler(handler, fixture('v2-post', { queue }));
}

beforeAll(async () => {
  previousSink = setLogSink((line) => logLines.push(line));
  server = await startStandalone({
    auth: ADMIN,
    extraArgs: [
      ...['--user', ADMIN.username, 'on', `>${ADMIN.password}`, '~*', '&*', '+@all'],
      ...['--user', TARGET.userId, 'off', '~*', '&*', '+@all'],
      ...['--user', 'default', 'off'],
    ],
  });
  admin = await server.client();
  await installFence(await connectTo(server, { ...ADMIN, checkFence: false }));
  setIamSessionOptions({
    clock: () => now,
    credentials: async () => {
      if (signingFails) throw new Error('Could not load credentials from any providers');
      return CREDENTIALS;
    },
  });
  await acceptTokenAt(now);
  await configureContainer(server, {
    EMQ_EXECUTOR: 'function',
    EMQ_IAM_AUTH: 'true',
    EMQ_USERNAME: TARGET.userId,
    // Mixed case as a CloudFormation Ref may give it: tokens are signed for the lowercase name.
    EMQ_IAM_CACHE_NAME: 'EMQ-Test-Cache',
    EMQ_IAM_REGION: TARGET.region,
  });
});

afterAll(async () => {
  await resetContainer();
  setIamSessionOptions({});
  setLogSink(previousSink);
  clearEmqEnv();
  admin?.disconnect();
  await server?.stop();
});

describe('IAM authentication of the container connection', () => {
  it('opens with the token signed now, as the IAM user', async () => {
    expect((await post(randomQueue('iam'))).response.statusCode).toBe(201);
    expect(await functionClients()).toBe(1);
  });

  it('keeps the token until it is due, then re-authenticates the open connection with a new one', async () => {
    const connection = await containerConnection();
    const before = await authCalls();
    now += TOKEN_REFRESH_AFTER_MS - MINUTE;
    expect((await post(randomQueue('iam'))).response.statusCode).toBe(201);
    expect(await authCalls()).toBe(before);

    now += MINUTE;
    // From now on only the new token opens a connection: the old one is refused.
    await acceptTokenAt(now);
    expect((await post(randomQueue('iam'))).response.statusCode).toBe(201);
    expect(await authCalls()).toBe(before + 1);
    expect(await containerConnection()).toBe(connection);
    expect(await functionClients()).toBe(1);
  });

  it('reconnects with the renewed token after its connection is killed, and serves again', async () => {
    const connection = await containerConnection();
    expect(await admin.call('CLIENT', 'KILL', 'USER', TARGET.userId)).toBe(1);
    await waitFor('the function to reconnect as its IAM user', 10_000, async () =>
      (await functionClients()) === 1 ? undefined : 'not reconnected',
    );
    expect((await post(randomQueue('iam'))).response.statusCode).toBe(201);
    expect(await containerConnection()).toBe(connection);
    // No authentication was ever refused: every connect and AUTH carried a valid token.
    expect(await admin.call('ACL', 'LOG')).toEqual([]);
  });

  it('answers 503 with Retry-After, writing nothing, when a due token cannot be signed; serves once it can', async () => {
    now += TOKEN_REFRESH_AFTER_MS;
    await acceptTokenAt(now);
    signingFails = true;
    const queue = randomQueue('iam');
    const before = await digestOf(server);
    const refused = await post(queue);
    expect(refused.response.statusCode).toBe(503);
    expect(refused.response.headers?.['retry-after']).toBeDefined();
    expect(refused.body.code).toBe('EMQ_UNAVAILABLE');
    expect(refused.response.body).not.toMatch(
      /X-Amz|AKID|emq-test-cache|eu-west-1|127\.0\.0\.1|EMQ_IAM/i,
    );
    expect(await digestOf(server)).toBe(before);

    signingFails = false;
    expect((await post(queue)).response.statusCode).toBe(201);
    expect((await jobsOf(await containerConnection(), queue)).rows).toHaveLength(1);
  });

  it('fails an SQS batch as retryable items, never dead letters, when no token can be signed at cold start', async () => {
    await resetContainer();
    signingFails = true;
    const sqs = fakeSqs();
    const records = [sqsRecord({ body: 'a' }), sqsRecord({ body: 'b' })];
    const deps = { connection: containerConnection, sqs };
    const options = {
      defaultQueue: randomQueue('iam-sqs'),
      dlqUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/emq-dlq',
    };
    const before = await digestOf(server);
    const failed = await handleSqsBatch(sqsEvent(records), deps, options);
    expect(failed.batchItemFailures.map((item) => item.itemIdentifier)).toEqual(
      records.map((record) => record.messageId),
    );
    expect(sqs.requests).toEqual([]);
    expect(await digestOf(server)).toBe(before);

    signingFails = false;
    expect(await handleSqsBatch(sqsEvent(records), deps, options)).toEqual({
      batchItemFailures: [],
    });
    expect((await jobsOf(await containerConnection(), options.defaultQueue)).rows).toHaveLength(2);
  });
});
