// 413, never 500: every body over a limit (an item over the payload cap, a batch or any body
// over the 6 MiB a synchronous invocation carries) answers 413 with the problem body, from
// every event form (HTTP API payload 2.0, REST payload 1.0, Function URL), base64 or not.
// The built bundle runs in a container process as Lambda runs it; nothing reaches Valkey.
// A 9 MB batch handed over base64-encoded, as API Gateway passes a body it does not treat as
// text, once answered 500 EMQ_UNKNOWN (a RangeError of the base64 check).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Children } from '../../cli/runtime/children.js';
import { type FunctionProcess, startFunction } from '../../cli/runtime/function-process.js';
import { batchOf, eventWithBody, FORMATS, type HttpEventJson } from '../fixtures/http/events.js';
import { requestLine } from '../fixtures/http/invoke.js';
import { freshBundle } from '../support/bundles.js';
import { connectTo, jobsOf, startFencedServer } from '../support/emq.js';
import { assertMatchesContract } from '../support/openapi.js';
import { randomQueue, type ServerHandle } from '../support/servers.js';

let server: ServerHandle;
const children = new Children();
let http: FunctionProcess;
const log: string[] = [];

beforeAll(async () => {
  const bundle = await freshBundle('functions/http', ['src', 'functions/http', 'functions/shared']);
  server = await startFencedServer();
  http = await startFunction(children, {
    name: 'http',
    bundle,
    env: { PATH: process.env.PATH, EMQ_URL: server.url },
    log: (line) => log.push(line),
  });
}, 180_000);

afterAll(async () => {
  await http?.stop();
  await children.stopAll();
  await server?.stop();
});

async function answerTo(event: HttpEventJson) {
  const response = (await http.invoke(event)) as {
    statusCode: number;
    headers: Record<string, string>;
    body: string;
  };
  assertMatchesContract(requestLine(event), { ...response });
  return response;
}

const CASES = FORMATS.flatMap((form) => [false, true].map((base64) => [form, base64] as const));

describe.each(CASES)('%s, base64 %s', (form, base64) => {
  it('answers 413 to a 9 MB batch (300 jobs of 30 KB), a 9 MB POST and PUT, and items over the cap', async () => {
    const queue = randomQueue('too-large');
    const over = [
      ['a 9 MB batch', eventWithBody(form, 'batch', queue, batchOf(300, 30_000), base64)],
      ['a 9 MB POST', eventWithBody(form, 'POST', queue, 'x'.repeat(9_000_000), base64)],
      ['a 9 MB PUT', eventWithBody(form, 'PUT', queue, 'x'.repeat(9_000_000), base64)],
      ['a POST over the cap', eventWithBody(form, 'POST', queue, 'x'.repeat(262_145), base64)],
      [
        'a batch item over the cap',
        eventWithBody(form, 'batch', queue, batchOf(2, 262_145), base64),
      ],
    ] as const;
    for (const [what, event] of over) {
      const response = await answerTo(event);
      expect(response.statusCode, what).toBe(413);
      expect(response.headers['content-type'], what).toBe('application/problem+json');
      expect(JSON.parse(response.body), what).toMatchObject({
        status: 413,
        code: 'EMQ_PAYLOAD_TOO_LARGE',
        retryable: false,
      });
    }
    const reader = await connectTo(server);
    try {
      expect(await jobsOf(reader, queue)).toEqual({ rows: [], pending: [] });
    } finally {
      await reader.close();
    }
  });
});
