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
import { install } from '../../src/connection/fence.js';
import { configure } from '../../src/settings/config.js';
import { fixture } from '../fixtures/http/events.js';
import {
  clearEmqEnv,
  configureContainer,
  invoke as invokeHandler,
} from '../fixtures/http/invoke.js';
import { sqsEvent, sqsRecord } from '../fixtures/sqs/records.js';
import { ADMIN, usersWithAdmin } from '../support/admin-user.js';
import { connectTo, jobsOf } from '../support/emq.js';
import {
  type ClusterHandle,
  digestOf,
  randomQueue,
  type ServerHandle,
  startCluster,
  startStandalone,
} from '../support/servers.js';
import { useSqs } from '../support/sqs.js';
import { waitFor } from '../support/wait.js';

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

const USER_ARGS = usersWithAdmin([TARGET.userId, 'off', '~*', '&*', '+@all']);

let now = Date.parse('2026-12-01T12:00:00Z');
let signingFails = false;
let target: ServerHandle | ClusterHandle;
/** One admin client per node: ACL users and counters are per node. */
let admins: Valkey[];
const logLines: string[] = [];
let previousSink: LogSink;
const sqs = useSqs();

/** Every node accepts only the token signed at `at` for the user, as ElastiCache would. */
async function acceptTokenAt(at: number): Promise<void> {
  const token = await signIamToken(TARGET, CREDENTIALS, new Date(at));
  for (const admin of admins) {
    await admin.call('ACL', 'SETUSER', TARGET.userId, 'on', 'resetpass', `>${token}`);
  }
}

async function sum(each: (admin: Valkey) => Promise<number>): Promise<number> {
  return (await Promise.all(admins.map(each))).reduce((total, count) => total + count, 0);
}

const authCalls = () =>
  sum(async (admin) => {
    const stats = await admin.info('commandstats');
    return Number(/cmdstat_auth:calls=(\d+)/.exec(stats)?.[1] ?? 0);
  });

/** Connections of the function's user, on every node. */
const functionClients = () =>
  sum(async (admin) => {
    const list = String(await admin.call('CLIENT', 'LIST'));
    return list.split('\n').filter((line) => line.includes(` user=${TARGET.userId} `)).length;
  });

function digest(): Promise<unknown> {
  return target.kind === 'cluster' ? digestOf(target) : digestOf(target);
}

async function post(queue: string) {
  return invokeHandler(handler, fixture('v2-post', { queue }));
}

describe.each([
  { kind: 'standalone', start: () => startStandalone({ auth: ADMIN, extraArgs: USER_ARGS }) },
  { kind: 'cluster', start: () => startCluster({ auth: ADMIN, extraArgs: USER_ARGS }) },
])('IAM authentication of the container connection ($kind)', ({ start }) => {
  beforeAll(async () => {
    previousSink = setLogSink((line) => logLines.push(line));
    signingFails = false;
    target = await start();
    const nodes = target.kind === 'cluster' ? target.nodes : [target];
    admins = await Promise.all(nodes.map((node) => node.client()));
    await install(await connectTo(target, { ...ADMIN, checkFence: false }));
    setIamSessionOptions({
      clock: () => now,
      credentials: async () => {
        if (signingFails) throw new Error('Could not load credentials from any providers');
        return CREDENTIALS;
      },
    });
    await acceptTokenAt(now);
    await configureContainer(target, {
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
    for (const admin of admins ?? []) admin.disconnect();
    await target?.stop();
  });

  it('opens with the token signed now, as the IAM user', async () => {
    expect((await post(randomQueue('iam'))).response.statusCode).toBe(201);
    expect(await functionClients()).toBeGreaterThanOrEqual(1);
  });

  it('keeps the token until it is due, then re-authenticates the open connection with a new one', async () => {
    const connection = await containerConnection();
    const before = await authCalls();
    const connections = await functionClients();
    now += TOKEN_REFRESH_AFTER_MS - MINUTE;
    expect((await post(randomQueue('iam'))).response.statusCode).toBe(201);
    expect(await authCalls()).toBe(before);

    now += MINUTE;
    // From now on only the new token opens a connection: the old one is refused.
    await acceptTokenAt(now);
    expect((await post(randomQueue('iam'))).response.statusCode).toBe(201);
    // One AUTH per open connection of the function (one per node in a cluster), none new.
    expect(await functionClients()).toBe(connections);
    expect(await authCalls()).toBe(before + connections);
    expect(await containerConnection()).toBe(connection);
  });

  it('reconnects with the renewed token after its connection is killed, and serves again', async () => {
    const connection = await containerConnection();
    const connections = await functionClients();
    const killed = await sum(async (admin) =>
      Number(await admin.call('CLIENT', 'KILL', 'USER', TARGET.userId)),
    );
    expect(killed).toBe(connections);
    // A connection killed under a command answers 503 (retry) until it is back; what matters
    // is that it comes back, on every primary, with the renewed token. The function's own
    // client reopens a node's connection when a command needs it, so the check pings them.
    const primaries = target.kind === 'cluster' ? (await target.primaries()).length : 1;
    await waitFor('the function to reconnect to every primary', 30_000, async () => {
      const answers = await Promise.all(
        connection.primaries().map((node) => node.ping().catch((error: Error) => error.message)),
      );
      const ready = answers.filter((answer) => answer === 'PONG').length;
      if (connection.client.status !== 'ready') return `client ${connection.client.status}`;
      return ready === primaries ? undefined : `${ready} of ${primaries}: ${answers.join(', ')}`;
    });
    for (let index = 0; index < 6; index++) {
      expect((await post(randomQueue(`iam-${index}`))).response.statusCode).toBe(201);
    }
    expect(await containerConnection()).toBe(connection);
    // No authentication was ever refused: every connect and AUTH carried a valid token.
    for (const admin of admins) expect(await admin.call('ACL', 'LOG')).toEqual([]);
  });

  it('answers 503 with Retry-After, writing nothing, when a due token cannot be signed; serves once it can', async () => {
    now += TOKEN_REFRESH_AFTER_MS;
    await acceptTokenAt(now);
    signingFails = true;
    const queue = randomQueue('iam');
    const before = await digest();
    const refused = await post(queue);
    expect(refused.response.statusCode).toBe(503);
    expect(refused.response.headers?.['retry-after']).toBeDefined();
    expect(refused.body.code).toBe('EMQ_UNAVAILABLE');
    expect(refused.response.body).not.toMatch(
      /X-Amz|AKID|emq-test-cache|eu-west-1|127\.0\.0\.1|EMQ_IAM/i,
    );
    expect(await digest()).toEqual(before);

    signingFails = false;
    expect((await post(queue)).response.statusCode).toBe(201);
    expect((await jobsOf(await containerConnection(), queue)).rows).toHaveLength(1);
  });

  it('fails an SQS batch as retryable items, never dead letters, when no token can be signed at cold start', async () => {
    await resetContainer();
    signingFails = true;
    const dlq = sqs().dlq();
    const records = [sqsRecord({ body: 'a' }), sqsRecord({ body: 'b' })];
    const deps = {
      admission: {
        config: configure({ defaultQueue: randomQueue('iam-sqs'), dlqUrl: dlq.url }),
        connection: containerConnection,
      },
      sqs: sqs().client,
    };
    const before = await digest();
    const failed = await handleSqsBatch(sqsEvent(records), deps);
    expect(failed.batchItemFailures.map((item) => item.itemIdentifier)).toEqual(
      records.map((record) => record.messageId),
    );
    expect(sqs().requests).toEqual([]);
    expect(await dlq.letters()).toEqual([]);
    expect(await digest()).toEqual(before);

    signingFails = false;
    expect(await handleSqsBatch(sqsEvent(records), deps)).toEqual({
      batchItemFailures: [],
    });
    expect(
      (await jobsOf(await containerConnection(), deps.admission.config.defaultQueue)).rows,
    ).toHaveLength(2);
    expect(await dlq.letters()).toEqual([]);
  });

  it('serves on the next invocation after its connection dropped while its token was stale', async () => {
    // A container left idle past the token's validity, whose connection the server dropped
    // (ElastiCache's 12-hour limit): the client reconnects with the old token and is refused.
    await containerConnection();
    now += 13 * 60 * MINUTE;
    await acceptTokenAt(now);
    for (const admin of admins) await admin.call('ACL', 'LOG', 'RESET');
    await sum(async (admin) => Number(await admin.call('CLIENT', 'KILL', 'USER', TARGET.userId)));
    await waitFor('a reconnect with the stale token to be refused', 30_000, async () => {
      const refused = await sum(async (admin) => ((await admin.call('ACL', 'LOG')) as []).length);
      return refused > 0 ? undefined : 'no refusal yet';
    });
    const answer = await post(randomQueue('iam-idle'));
    expect(answer.response.statusCode).toBe(201);
  });
});
