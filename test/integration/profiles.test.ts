// The product where AWS runs it (docs/wire.md, "The calls"; docs/deploy.md, "The cache kinds"):
// every deploy kind against a Valkey shaped as that service (test/support/targets: its unavailable
// commands unknown, its memory policy, cluster mode, TLS, for Serverless its argument cap and
// key-less script refusal), with the settings the synthesized stack deploys: the installer's, the
// HTTP and SQS functions' environments and the deployed users' access strings. Every scenario ends
// by checking that each command the product sent is one the target supports.
import type { SQSRecord } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { onFenceEvent } from '../../functions/fence/on-event.js';
import { handler as httpHandler } from '../../functions/http/handler.js';
import { resetContainer } from '../../functions/shared/connection.js';
import { setLogSink } from '../../functions/shared/log.js';
import { handler as sqsHandler } from '../../functions/sqs/handler.js';
import type { CacheKind } from '../../infra/cache/registry.js';
import { mintId } from '../../src/keyspace/ids.js';
import { fixture, lambdaContext, withBody, withPath } from '../fixtures/http/events.js';
import { clearEmqEnv, invoke } from '../fixtures/http/invoke.js';
import { redelivered, sqsEvent, sqsRecord } from '../fixtures/sqs/records.js';
import { createEvent } from '../infra/support/cfn-events.js';
import { randomQueue } from '../support/names.js';
import {
  assertCommandsSupported,
  type Deployed,
  deployed,
  deployedUsers,
  environmentFor,
  type ProfileName,
  SecretsStandIn,
  startTarget,
  type Target,
  type TargetUser,
} from '../support/targets/index.js';
import { EXISTING_SECRET_ARN } from '../support/targets/templates.js';

/** An existing endpoint has no users of the stack's: its operator gives one, with one secret. */
const OPERATOR: TargetUser = {
  name: 'emq-operator',
  rules: 'on resetchannels ~* +@all',
};
const DLQ = 'https://sqs.eu-west-1.amazonaws.com/123456789012/emq-dead-letters';

const KINDS: readonly { readonly kind: CacheKind; readonly profile: ProfileName }[] = [
  { kind: 'elasticache', profile: 'elasticache' },
  { kind: 'serverless', profile: 'serverless' },
  { kind: 'existing', profile: 'memorydb' },
  { kind: 'selfmanaged', profile: 'selfmanaged' },
];

let restoreLogs: ((line: string) => void) | undefined;
beforeAll(() => {
  restoreLogs = setLogSink(() => {});
});
afterAll(() => {
  if (restoreLogs !== undefined) setLogSink(restoreLogs);
});

describe.each(KINDS)('cache=$kind on a $profile-shaped target', ({ kind, profile }) => {
  let settings: Deployed;
  let target: Target;
  let secrets: SecretsStandIn;
  let endpoint: Record<string, string>;
  const saved = { ...process.env };

  beforeAll(async () => {
    settings = deployed(kind);
    const users = kind === 'existing' ? [OPERATOR] : deployedUsers(settings);
    target = await startTarget(profile, { users });
    const operator = target.passwords.get(OPERATOR.name);
    secrets = new SecretsStandIn(
      settings,
      target,
      operator === undefined
        ? {}
        : { [EXISTING_SECRET_ARN]: { username: OPERATOR.name, password: operator } },
    );
    endpoint = await secrets.listen();
    await install();
  });

  afterEach(async () => {
    await resetContainer();
    clearEmqEnv();
    for (const name of Object.keys(endpoint)) delete process.env[name];
    Object.assign(process.env, saved);
  });

  afterAll(async () => {
    await secrets?.stop();
    await target?.stop();
  });

  /** The deploy-time installer, its environment and its own user's secret as synthesized. */
  async function install(): Promise<number | undefined> {
    const { env } = environmentFor(settings, 'fence', target);
    const result = await onFenceEvent(createEvent(env.EMQ_WIRE ?? '1'), {
      env,
      secrets: secrets.client,
      retryForMs: 0,
    });
    return result.Data?.Nodes;
  }

  /** A client as the functions' own user (its rules allow reading rows and pending sets). */
  function reader() {
    const functions = settings.users.find((user) => user.name !== 'emq-installer')?.name;
    return target.client(kind === 'existing' ? OPERATOR.name : functions);
  }

  /** The container of a function, configured from its deployed environment, as Lambda does. */
  function deploy(fn: 'http' | 'sqs'): void {
    clearEmqEnv();
    Object.assign(process.env, environmentFor(settings, fn, target, { dlqUrl: DLQ }).env, endpoint);
  }

  it('installs the identity and the library on every primary, as the deployed installer', async () => {
    target.commands.reset();
    expect(await install()).toBe((await target.primaries()).length);
    assertCommandsSupported(target);
  });

  it('admits, replays, PUTs, reads back and batches through the HTTP function as deployed', async () => {
    deploy('http');
    const queue = randomQueue(`http-${kind}`);
    target.commands.reset();
    const post = fixture('v2-post-idempotency-key', { queue });
    const first = await invoke(httpHandler, post);
    expect(first.response.statusCode).toBe(201);
    const replay = await invoke(httpHandler, post);
    expect(replay.response.statusCode).toBe(200);
    expect(replay.body.id).toBe(first.body.id);
    expect((await invoke(httpHandler, withBody(post, 'another body'))).response.statusCode).toBe(
      422,
    );

    const id = mintId();
    const put = fixture('v2-put', { queue, id });
    expect((await invoke(httpHandler, put)).response.statusCode).toBe(201);
    expect((await invoke(httpHandler, put)).response.statusCode).toBe(200);
    const got = await invoke(httpHandler, fixture('v2-get', { queue, id }));
    expect(got.response.statusCode).toBe(200);
    expect(got.body).toMatchObject({ queue, id, state: 'pending', attempts: 0 });

    const batch = withBody(
      fixture('v2-post', { queue }),
      JSON.stringify({
        jobs: [
          { payload: 'a' },
          { payload: 'b', idempotencyKey: 'batch-b' },
          { payload: 'c', id: mintId() },
        ],
      }),
    );
    const batched = await invoke(httpHandler, withPath(batch, `/queues/${queue}/jobs/batch`));
    expect(batched.response.statusCode).toBe(200);
    expect((batched.body.results as { status: string }[]).map((result) => result.status)).toEqual([
      'enqueued',
      'enqueued',
      'enqueued',
    ]);
    assertCommandsSupported(target);
  });

  it('admits an SQS batch once, and its redelivery as duplicates, through the SQS function as deployed', async () => {
    deploy('sqs');
    const queue = randomQueue(`sqs-${kind}`);
    const records: SQSRecord[] = Array.from({ length: 10 }, (_, i) =>
      sqsRecord({ queue, body: `job ${i}`, ...(i === 9 ? { jobId: mintId() } : {}) }),
    );
    target.commands.reset();
    expect(await sqsHandler(sqsEvent(records), lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(
      await sqsHandler(sqsEvent(records.map((record) => redelivered(record))), lambdaContext()),
    ).toEqual({ batchItemFailures: [] });
    const client = await reader();
    expect(await client.zcard(`emq:{${queue}}:pending`)).toBe(10);
    assertCommandsSupported(target);
  });

  // An existing endpoint has one operator's user and secret for both: nothing to tell apart.
  const separateUsers = kind === 'existing' ? ((() => undefined) as unknown as typeof it) : it;
  separateUsers(
    "refuses the installer's work to the functions' user, and the dataset stays as it was",
    async () => {
      const before = await target.digest();
      const { env } = environmentFor(settings, 'http', target, { dlqUrl: DLQ });
      const failed = await onFenceEvent(createEvent(env.EMQ_WIRE ?? '1'), {
        env: { ...env, ...endpoint },
        secrets: secrets.client,
        retryForMs: 0,
      }).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(Error);
      expect(String((failed as Error).message)).toMatch(/EMQ_CONFIG|NOPERM|permission|ACL|user/i);
      expect(await target.digest()).toEqual(before);
    },
  );
});

describe('cache=serverless under its forced volatile-lru at its storage limit', () => {
  let settings: Deployed;
  let target: Target;
  let secrets: SecretsStandIn;
  let endpoint: Record<string, string>;

  beforeAll(async () => {
    settings = deployed('serverless');
    target = await startTarget('serverless', { users: deployedUsers(settings) });
    secrets = new SecretsStandIn(settings, target);
    endpoint = await secrets.listen();
    const { env } = environmentFor(settings, 'fence', target);
    await onFenceEvent(createEvent(env.EMQ_WIRE ?? '1'), { env, secrets: secrets.client });
    Object.assign(
      process.env,
      environmentFor(settings, 'sqs', target, { dlqUrl: DLQ }).env,
      endpoint,
    );
  });

  afterAll(async () => {
    await resetContainer();
    clearEmqEnv();
    await secrets?.stop();
    await target?.stop();
  });

  it('answers a keyed replay as a duplicate after other keys with a TTL were evicted', async () => {
    const queue = randomQueue('evict');
    const records = Array.from({ length: 300 }, (_, i) => sqsRecord({ queue, body: `job ${i}` }));
    for (let at = 0; at < records.length; at += 10) {
      expect(await sqsHandler(sqsEvent(records.slice(at, at + 10)), lambdaContext())).toEqual({
        batchItemFailures: [],
      });
    }
    // Another application's cache keys, each with a TTL, until the service evicts.
    const admin = await target.adminClient(target.nodes[0] as (typeof target.nodes)[number]);
    const value = 'x'.repeat(1_024);
    let evicted = 0;
    for (let round = 0; evicted < 20_000 && round < 400; round++) {
      const pipeline = admin.pipeline();
      for (let i = 0; i < 500; i++) pipeline.set(`cache:${round}:${i}`, value, 'PX', 3_600_000);
      await pipeline.exec();
      evicted = Number(/evicted_keys:(\d+)/.exec(await admin.info('stats'))?.[1] ?? 0);
    }
    expect(evicted).toBeGreaterThanOrEqual(20_000);
    await resetContainer();
    for (let at = 0; at < records.length; at += 10) {
      const again = records.slice(at, at + 10).map((record) => redelivered(record));
      expect(await sqsHandler(sqsEvent(again), lambdaContext())).toEqual({ batchItemFailures: [] });
    }
    const functions = settings.users.find((user) => user.name !== 'emq-installer')?.name;
    const client = await target.client(functions);
    expect(await client.zcard(`emq:{${queue}}:pending`)).toBe(300);
  });
});
