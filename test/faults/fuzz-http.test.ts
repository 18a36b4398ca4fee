// Generated HTTP events against a real server: well-formed requests on every front with
// queue names, ids, keys, headers, base64 flags and bodies up to and past the cap drawn from
// pools, and malformed events. The handler never throws, never answers 5xx (the server is
// healthy, so no 5xx can be the input's fault), and only a 201 changes the dataset.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/http/handler.js';
import type { HttpResponse } from '../../functions/http/responses.js';
import { resetContainer } from '../../functions/shared/connection.js';
import { type LogSink, setLogSink } from '../../functions/shared/log.js';
import { type HttpEventJson, lambdaContext } from '../fixtures/http/events.js';
import { clearEmqEnv, configureContainer, requestLine } from '../fixtures/http/invoke.js';
import { assertMatchesContract } from '../support/openapi.js';
import { type ServerHandle, startStandalone } from '../support/servers.js';
import { installWire } from './driver/topology.js';
import { type Dataset, datasetOf, fuzzSeed } from './fuzz/dataset.js';
import { httpEventArb } from './fuzz/http-events.js';
import { FUZZ_CAP_BYTES, queuePool } from './fuzz/pools.js';

/** Per family; with the SQS file's records, over 10,000 generated inputs in all. */
const EVENTS_PER_EXECUTOR = 3_000;
/** Events between dataset resets, which keep DEBUG DIGEST cheap. */
const EVENTS_PER_RESET = 250;

let server: ServerHandle;
let dataset: Dataset;
let previousSink: LogSink;

beforeAll(async () => {
  server = await startStandalone({ module: true });
  await installWire(server);
  dataset = await datasetOf(server);
  // One log line per request would flood the output; the answers are what is checked.
  previousSink = setLogSink(() => {});
});

afterAll(async () => {
  setLogSink(previousSink);
  await resetContainer();
  clearEmqEnv();
  await server?.stop();
});

function isResponse(value: unknown): value is HttpResponse {
  const response = value as Partial<HttpResponse> | null;
  return (
    typeof response === 'object' &&
    response !== null &&
    typeof response.statusCode === 'number' &&
    typeof response.body === 'string' &&
    typeof response.headers === 'object'
  );
}

describe.each(['native', 'function'] as const)('with the %s family', (executor) => {
  it('answers every generated event below 500 and writes only on a 201', async () => {
    await configureContainer(server, {
      EMQ_EXECUTOR: executor,
      EMQ_MAX_PAYLOAD_BYTES: String(FUZZ_CAP_BYTES),
    });
    const queues = queuePool();
    const answers = new Map<string, number>();
    let events = 0;
    let last = await dataset.digest();
    await fc.assert(
      fc.asyncProperty(httpEventArb(queues), async (event) => {
        events += 1;
        if (events % EVENTS_PER_RESET === 0) {
          await dataset.reset();
          last = await dataset.digest();
        }
        const answer: unknown = await handler(event as never, lambdaContext());
        if (!isResponse(answer)) throw new Error(`not a response: ${JSON.stringify(answer)}`);
        // HEAD answers without a body; every answer must be one the OpenAPI document describes.
        const body = (answer.body === '' ? {} : JSON.parse(answer.body)) as Record<string, unknown>;
        assertMatchesContract(requestLine(event as HttpEventJson), answer);
        const now = await dataset.digest();
        const changed = now !== last;
        last = now;
        const label = `${answer.statusCode} ${String(body.code ?? body.status ?? body.state)}`;
        answers.set(label, (answers.get(label) ?? 0) + 1);
        expect(answer.statusCode).toBeLessThan(500);
        expect({ status: answer.statusCode, changed }).toEqual({
          status: answer.statusCode,
          changed: answer.statusCode === 201,
        });
        expect(answer.body).not.toContain(String(server.port));
        // A HEAD answer has no body; its problem is checked by the contract (headers) alone.
        if (answer.statusCode >= 400 && answer.body !== '') {
          expect(body).toMatchObject({ retryable: false });
        }
      }),
      { numRuns: EVENTS_PER_EXECUTOR, ...fuzzSeed() },
    );
    console.info(
      `[fuzz] http (${executor}): ${events} events; ${[...answers]
        .sort()
        .map(([label, count]) => `${label}: ${count}`)
        .join(', ')}`,
    );
    expect(events).toBeGreaterThanOrEqual(EVENTS_PER_EXECUTOR);
    // The pools must reach the write path, or the run proves little.
    expect(answers.get('201 enqueued') ?? 0).toBeGreaterThan(0);
  });
});
