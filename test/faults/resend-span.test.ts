// The resend span. A write whose reply is lost with its connection is sent again by this
// code, under its key, once the connection is back: within one invocation for at most
// resendSpanMs of the settings (two passes of the connect timeout and the command timeout). A
// key that expired before that resend would let it write a second job, so loadConfig refuses an
// EMQ_DEDUPE_TTL_MS shorter than the span; and a resend that finds its own first attempt's job
// answers as that attempt would have (201, enqueued), while a caller's replay answers 200.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServices, serve } from '../../functions/http/serve.js';
import { setLogSink } from '../../functions/shared/log.js';
import { handleSqsBatch } from '../../functions/sqs/batch.js';
import { type Config, ConfigError, type Connection, connect, loadConfig } from '../../src/index.js';
import { resendSpanMs } from '../../src/settings/resend-span.js';
import { fixture, withBody, withHeader } from '../fixtures/http/events.js';
import { sqsEvent, sqsRecord } from '../fixtures/sqs/records.js';
import { admissionOf, connectTo, startFencedServer } from '../support/emq.js';
import { randomQueue, type ServerHandle } from '../support/servers.js';
import { useSqs } from '../support/sqs.js';
import { waitFor } from '../support/wait.js';
import {
  type DropTrigger,
  type ReplyDropProxy,
  startReplyDropProxy,
} from './support/reply-drop-proxy.js';

let server: ServerHandle;
let proxy: ReplyDropProxy;
let reader: Connection;
const trigger: DropTrigger = { marker: undefined };
const sqs = useSqs();

beforeAll(async () => {
  server = await startFencedServer();
  proxy = await startReplyDropProxy(server.port, trigger);
  reader = await connectTo(server);
});

afterAll(async () => {
  await proxy?.close();
  await server?.stop();
});

/** Timeouts short enough for a test, long enough for a busy machine: a 4 s resend span. */
const TIMEOUTS = { EMQ_COMMAND_TIMEOUT_MS: '1000', EMQ_CONNECT_TIMEOUT_MS: '1000' };

describe('an idempotency key that could expire while this code still sends its call', () => {
  it('is refused at configuration, naming both figures and the setting', () => {
    // The audit's setting: the table's minimum, one second.
    expect(() => loadConfig({ EMQ_DEDUPE_TTL_MS: '1000' })).toThrow(ConfigError);
    expect(() => loadConfig({ EMQ_DEDUPE_TTL_MS: '1000' })).toThrow(
      /^EMQ_DEDUPE_TTL_MS is 1000 ms, shorter than 10000 ms, .*EMQ_CONNECT_TIMEOUT_MS 3000 \+ EMQ_COMMAND_TIMEOUT_MS 2000.*Raise EMQ_DEDUPE_TTL_MS to at least 10000/,
    );
    expect(() => loadConfig({ ...TIMEOUTS, EMQ_DEDUPE_TTL_MS: '3999' })).toThrow(
      /^EMQ_DEDUPE_TTL_MS is 3999 ms, shorter than 4000 ms/,
    );
    expect(loadConfig({ ...TIMEOUTS, EMQ_DEDUPE_TTL_MS: '4000' }).dedupeTtlMs).toBe(4000);
  });
});

/** Until the proxy listens again after a refusal. */
function listening(): Promise<void> {
  return waitFor('the proxy to listen again', 20_000, async () =>
    proxy.refusing() ? 'refusing' : undefined,
  );
}

/** A container's configuration and connection through the proxy. */
async function through(env: Record<string, string>): Promise<{ config: Config; conn: Connection }> {
  await listening();
  const config = loadConfig({ ...env, EMQ_URL: proxy.url });
  const conn = await connect({ ...config, family: 'native' });
  return { config, conn };
}

/** The shortest TTL loadConfig allows with TIMEOUTS: the 4 s span. */
function shortestTtl(): Promise<{ config: Config; conn: Connection }> {
  const span = resendSpanMs({ connectTimeoutMs: 1000, commandTimeoutMs: 1000 });
  expect(span).toBe(4000);
  return through({ ...TIMEOUTS, EMQ_DEDUPE_TTL_MS: String(span) });
}

/** How many rows of `queue` hold each payload, read straight from the server. */
async function rowsByPayload(queue: string): Promise<Map<string, number>> {
  const keys = await reader.client.keys(`emq:{${queue}}:job:*`);
  const counts = new Map<string, number>();
  for (const key of keys) {
    const payload = (await reader.client.hget(key, 'payload')) ?? '';
    counts.set(payload, (counts.get(payload) ?? 0) + 1);
  }
  return counts;
}

/** The SQS face's `outcome` per message id, from its record lines. */
function tapRecords(): { outcomes: Map<string, string>; close: () => void } {
  const outcomes = new Map<string, string>();
  const restore = setLogSink((line) => {
    if (!line.includes('"sqs record"')) return;
    const fields = JSON.parse(line) as Record<string, unknown>;
    outcomes.set(String(fields.messageId), String(fields.outcome));
  }, 'debug');
  return { outcomes, close: () => setLogSink(restore) };
}

describe.each([
  // The audit's reproduction: nodes refusing connections for 1.5 s after the lost reply.
  ['1.5 s', 1_500],
  // Longer than the key's life (the shortest TTL, 4 s): no resend may land after it.
  ['longer than the key lives', 5_000],
])('with the shortest TTL, a lost reply and reconnects refused for %s', (_, refuseMs) => {
  let conn: Connection;
  let config: Config;
  beforeAll(async () => {
    ({ config, conn } = await shortestTtl());
  });
  afterAll(() => conn?.close());

  const lose = async (queue: string) => {
    await listening();
    trigger.refuseMs = refuseMs;
    trigger.marker = queue;
  };

  it('SQS: every record is written once, and an acknowledged one is the job it wrote', async () => {
    const queue = randomQueue('span-sqs');
    const records = Array.from({ length: 10 }, (_, i) => sqsRecord({ queue, body: `job ${i}` }));
    const tap = tapRecords();
    const dropped = proxy.dropped();
    await lose(queue);
    let failed: Set<string>;
    try {
      const deps = { admission: admissionOf(conn, config), sqs: sqs().client };
      const answer = await handleSqsBatch(sqsEvent(records), deps);
      failed = new Set(answer.batchItemFailures.map((failure) => failure.itemIdentifier));
    } finally {
      tap.close();
    }
    expect(proxy.dropped()).toBe(dropped + 1);
    // The lost call wrote all ten: whatever was resent found them, nothing wrote a second.
    const rows = await rowsByPayload(queue);
    expect([...rows.values()]).toEqual(Array(10).fill(1));
    for (const record of records) {
      if (failed.has(record.messageId)) continue;
      expect(tap.outcomes.get(record.messageId)).toBe('enqueued');
    }
    console.log(`refused ${refuseMs} ms: ${failed.size} of 10 records to retry`);
  });

  it('keyless POST: one job, and a 201 only for the job it wrote', async () => {
    const services: HttpServices = { admission: () => admissionOf(conn, config) };
    for (let i = 0; i < 2; i++) {
      const queue = randomQueue('span-post');
      await lose(queue);
      const event = withBody(fixture('v2-post', { queue }), `post ${i}`);
      const served = await serve(event, `req-span-${refuseMs}-${i}`, services);
      expect([201, 503]).toContain(served.response.statusCode);
      console.log(`refused ${refuseMs} ms: POST answered ${served.response.statusCode}`);
      expect(await rowsByPayload(queue)).toEqual(new Map([[`post ${i}`, 1]]));
    }
  });
});

describe('a resend that finds its own first attempt', () => {
  let conn: Connection;
  let config: Config;
  beforeAll(async () => {
    // The default timeouts: a busy machine's reconnect fits in the 3 s connect timeout.
    ({ config, conn } = await through({}));
  });
  afterAll(() => conn?.close());

  it('keyed POST: 201 after the function resent it, 200 to the caller who sends it again', async () => {
    const services: HttpServices = { admission: () => admissionOf(conn, config) };
    const queue = randomQueue('own-key');
    const event = withHeader(fixture('v2-post', { queue }), 'Idempotency-Key', 'order-7');
    const dropped = proxy.dropped();
    trigger.refuseMs = undefined;
    trigger.marker = queue;
    const first = await serve(event, 'req-own-1', services);
    expect(proxy.dropped()).toBe(dropped + 1);
    expect(first.response.statusCode).toBe(201);
    const id = JSON.parse(first.response.body).id as string;
    const again = await serve(event, 'req-own-2', services);
    expect(again.response.statusCode).toBe(200);
    expect(JSON.parse(again.response.body).id).toBe(id);
    expect((await reader.client.zrange(`emq:{${queue}}:pending`, 0, -1)).sort()).toEqual([id]);
  });

  it('SQS: the record is admitted as enqueued after the resend, and as duplicate redelivered', async () => {
    const queue = randomQueue('own-sqs');
    const records = [0, 1, 2].map((i) => sqsRecord({ queue, body: `own ${i}` }));
    const deps = { admission: admissionOf(conn, config), sqs: sqs().client };
    const dropped = proxy.dropped();
    trigger.refuseMs = undefined;
    trigger.marker = queue;
    const tap = tapRecords();
    try {
      expect((await handleSqsBatch(sqsEvent(records), deps)).batchItemFailures).toEqual([]);
      expect(proxy.dropped()).toBe(dropped + 1);
      expect(records.map((record) => tap.outcomes.get(record.messageId))).toEqual(
        Array(3).fill('enqueued'),
      );
      expect((await handleSqsBatch(sqsEvent(records), deps)).batchItemFailures).toEqual([]);
      expect(records.map((record) => tap.outcomes.get(record.messageId))).toEqual(
        Array(3).fill('duplicate'),
      );
    } finally {
      tap.close();
    }
    expect([...(await rowsByPayload(queue)).values()]).toEqual([1, 1, 1]);
  });
});
