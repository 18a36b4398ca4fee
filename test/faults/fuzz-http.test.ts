// Generated HTTP events against a real server: well-formed requests on every front with
// queue names, ids, keys, headers, base64 flags and bodies up to and past the cap drawn from
// pools, batches, hostile path prefixes, 1 MiB values, and malformed events. The handler never
// throws, never answers 5xx (the server is healthy, so no 5xx can be the input's fault), sends
// no header with CR or LF and no Location off the API's origin, logs no line over the bound,
// and only an admitted job changes the dataset, under its own queue's keys. Events an attacker
// writes by hand (lone surrogates, duplicated members, wrong types, a repeated key) are
// refused with 400 and nothing written.
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
import { type Dataset, datasetOf, fuzzParameters } from './fuzz/dataset.js';
import { type HostileCase, hostileHttpArb } from './fuzz/hostile-http.js';
import { describeEvent, httpEventArb } from './fuzz/http-events.js';
import {
  headerFaults,
  keyFaults,
  LOG_LINE_BOUND_BYTES,
  locationFaults,
  tally,
  Violations,
  watchLogs,
} from './fuzz/invariants.js';

// The invariants every answer keeps, whatever the event (docs/security.md).
const NO_CR_LF = 'no response header value holds CR or LF';
const SAME_ORIGIN = "Location is a path on the API's own origin";
const LOG_BOUND = `no log line over ${LOG_LINE_BOUND_BYTES} bytes`;
const OWN_KEYS = 'every key written lies under emq:{<the answered queue>}:';

import { FUZZ_CAP_BYTES, queuePool } from './fuzz/pools.js';

/** Per family; with the SQS file's records, over 10,000 generated inputs in all. */
const EVENTS_PER_FAMILY = 3_000;
/** Events between dataset resets, which keep DEBUG DIGEST cheap. */
const EVENTS_PER_RESET = 250;
/** Hand-written hostile events per family: each is refused, so each costs one digest. */
const HOSTILE_PER_FAMILY = 300;

let server: ServerHandle;
let dataset: Dataset;
let previousSink: LogSink;
// Every line at every level is measured; none is printed (one per request would flood CI).
const logs = watchLogs();

beforeAll(async () => {
  server = await startStandalone({ module: true });
  await installWire(server);
  dataset = await datasetOf(server);
  previousSink = setLogSink(logs.sink, 'debug');
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

/** Whether an answer says it admitted a new job: a 201, or a batch's 200 listing one. */
function admittedNew(status: number, body: Record<string, unknown>): boolean {
  if (status === 201) return true;
  const results = Array.isArray(body.results) ? (body.results as { status?: unknown }[]) : [];
  return status === 200 && results.some((result) => result?.status === 'enqueued');
}

describe.each(['native', 'function'] as const)('with the %s family', (family) => {
  it('answers every generated event below 500, writes only what it admits, and keeps headers, logs and keys within bounds', async () => {
    await configureContainer(server, {
      EMQ_EXECUTOR: family,
      EMQ_MAX_PAYLOAD_BYTES: String(FUZZ_CAP_BYTES),
    });
    const queues = queuePool();
    const answers = new Map<string, number>();
    let events = 0;
    const violations = new Violations();
    const parameters = fuzzParameters<[unknown]>(EVENTS_PER_FAMILY);
    let last = await dataset.digest();
    await dataset.written();
    logs.take();
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
          changed: admittedNew(answer.statusCode, body),
        });
        violations.note(NO_CR_LF, headerFaults(answer.headers), describeEvent(event));
        violations.note(SAME_ORIGIN, locationFaults(answer.headers), describeEvent(event));
        violations.note(LOG_BOUND, logs.take(), describeEvent(event));
        // Every key an admission wrote lies under the answered queue's tag; never the wire identity.
        if (changed) {
          const written = await dataset.written();
          // The digest moved, so some key did: the check below is never vacuous.
          expect(written.length).toBeGreaterThan(0);
          violations.note(OWN_KEYS, keyFaults(written, [String(body.queue)]), describeEvent(event));
        }
        expect(answer.body).not.toContain(String(server.port));
        // A HEAD answer has no body; its problem is checked by the contract (headers) alone.
        if (answer.statusCode >= 400 && answer.body !== '') {
          expect(body).toMatchObject({ retryable: false });
        }
      }),
      parameters,
    );
    console.info(
      `[fuzz] http (${family}, seed ${parameters.seed}): ${events} events, longest log line ${logs.longest()} bytes (bound ${LOG_LINE_BOUND_BYTES}); ${tally(answers)}`,
    );
    expect(events).toBeGreaterThanOrEqual(EVENTS_PER_FAMILY);
    // The pools must reach the write path, or the run proves little.
    expect(answers.get('201 enqueued') ?? 0).toBeGreaterThan(0);
    expect(violations.summary(), `replay with EMQ_FUZZ_SEED=${parameters.seed}`).toEqual({});
  });

  it('refuses every hand-written hostile event with 400 and writes nothing', async () => {
    await configureContainer(server, {
      EMQ_EXECUTOR: family,
      EMQ_MAX_PAYLOAD_BYTES: String(FUZZ_CAP_BYTES),
    });
    const queues = queuePool();
    const classes = new Map<string, number>();
    const violations = new Violations();
    const parameters = fuzzParameters<[HostileCase]>(HOSTILE_PER_FAMILY);
    logs.take();
    await fc.assert(
      fc.asyncProperty(hostileHttpArb(queues), async ({ label, event }) => {
        // Read per event: shrinking replays events after a failure that did write.
        const before = await dataset.digest();
        const answer: unknown = await handler(event as never, lambdaContext());
        if (!isResponse(answer)) throw new Error(`not a response: ${JSON.stringify(answer)}`);
        assertMatchesContract(requestLine(event), answer);
        const body = JSON.parse(answer.body) as Record<string, unknown>;
        const after = await dataset.digest();
        classes.set(label, (classes.get(label) ?? 0) + 1);
        // Noted per class, so one run names every kind of event that was let through.
        const wrote = after !== before;
        const refused = answer.statusCode === 400 && !wrote;
        const got = `${answer.statusCode} ${String(body.code ?? body.status)}${wrote ? ', wrote' : ''}`;
        violations.note(
          `refused, nothing written: ${label}`,
          refused ? [] : [got],
          describeEvent(event),
        );
        violations.note(NO_CR_LF, headerFaults(answer.headers), describeEvent(event));
        violations.note(LOG_BOUND, logs.take(), describeEvent(event));
      }),
      parameters,
    );
    console.info(`[fuzz] http hostile (${family}, seed ${parameters.seed}): ${tally(classes)}`);
    // Every class must have been drawn, or the run proves less than it says.
    expect(classes.size).toBeGreaterThanOrEqual(20);
    expect(violations.summary(), `replay with EMQ_FUZZ_SEED=${parameters.seed}`).toEqual({});
  });
});
