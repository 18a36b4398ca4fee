// Requests the face refuses before any I/O, and what it logs. Nothing here reaches Valkey:
// `connection()` counts the calls and fails, so a refusal that opened one would show.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { report } from '../../functions/http/report.js';
import { type HttpServices, serve } from '../../functions/http/serve.js';
import { type LogSink, setLogSink } from '../../functions/shared/log.js';
import { ConfigError, UnavailableError } from '../../src/index.js';
import { configure } from '../../src/settings/config.js';
import {
  FIXTURE_TEXT_BODY,
  type FixtureName,
  fixture,
  withBody,
  withHeader,
  withPath,
} from '../fixtures/http/events.js';

const REQUEST_ID = '0f4c2e8a-5b1d-4c3e-9a7f-00000000000a';

interface Probe extends HttpServices {
  readonly opened: number;
}

function services(options: { maxPayloadBytes?: number; failure?: Error } = {}): Probe {
  let opened = 0;
  return {
    get opened() {
      return opened;
    },
    admission: () => ({
      config: configure({ maxPayloadBytes: options.maxPayloadBytes }),
      connection: () => {
        opened += 1;
        return Promise.reject(options.failure ?? new Error('this request must not connect'));
      },
    }),
  };
}

function body(text: string): Record<string, unknown> {
  return JSON.parse(text) as Record<string, unknown>;
}

describe('serve, before any I/O', () => {
  it('answers 404 EMQ_ROUTE_NOT_FOUND for an unknown path', async () => {
    const probe = services();
    const served = await serve(fixture('v2-default-route-get'), REQUEST_ID, probe);
    expect(served.response.statusCode).toBe(404);
    expect(body(served.response.body)).toMatchObject({ code: 'EMQ_ROUTE_NOT_FOUND' });
    expect(served.response.headers['x-request-id']).toBe(REQUEST_ID);
    expect(probe.opened).toBe(0);
  });

  it('answers 405 with Allow POST for PATCH on the jobs collection', async () => {
    const probe = services();
    const served = await serve(fixture('v1-patch'), REQUEST_ID, probe);
    expect(served.response.statusCode).toBe(405);
    expect(served.response.headers.allow).toBe('POST');
    expect(body(served.response.body)).toMatchObject({ code: 'EMQ_METHOD_NOT_ALLOWED' });
    expect(probe.opened).toBe(0);
  });

  it('answers 405 with Allow GET, HEAD, PUT for DELETE on a job', async () => {
    const served = await serve(fixture('url-delete'), REQUEST_ID, services());
    expect(served.response.statusCode).toBe(405);
    expect(served.response.headers.allow).toBe('GET, HEAD, PUT');
  });

  it.each(['v2-post', 'v1-post', 'url-post', 'v2-put', 'v1-get'] as const)(
    'answers 400 EMQ_INVALID_QUEUE for %s to an invalid queue',
    async (name) => {
      const probe = services();
      const served = await serve(fixture(name, { queue: 'a%7Bb%7D' }), REQUEST_ID, probe);
      expect(served.response.statusCode).toBe(400);
      expect(served.response.headers['content-type']).toBe('application/problem+json');
      expect(body(served.response.body)).toMatchObject({
        status: 400,
        code: 'EMQ_INVALID_QUEUE',
        retryable: false,
        requestId: REQUEST_ID,
      });
      expect(probe.opened).toBe(0);
    },
  );

  it.each(['v2-put', 'v1-put', 'url-put', 'v2-get', 'url-get'] as const)(
    'answers 400 EMQ_INVALID_ID for %s with an id that is not a job id',
    async (name) => {
      const probe = services();
      const served = await serve(fixture(name, { id: 'JOB-not-base62' }), REQUEST_ID, probe);
      expect(served.response.statusCode).toBe(400);
      expect(body(served.response.body)).toMatchObject({ code: 'EMQ_INVALID_ID' });
      expect(probe.opened).toBe(0);
    },
  );

  it.each([
    ['v2-post', 'idempotency-key'],
    ['v1-post', 'Idempotency-Key'],
  ] as const)(
    'answers 400 EMQ_INVALID_REQUEST for %s with a key holding a space',
    async (name, header) => {
      const probe = services();
      const served = await serve(withHeader(fixture(name), header, 'two words'), REQUEST_ID, probe);
      expect(served.response.statusCode).toBe(400);
      expect(body(served.response.body)).toMatchObject({ code: 'EMQ_INVALID_REQUEST' });
      expect(probe.opened).toBe(0);
    },
  );

  it.each(['v2-post', 'v1-put', 'url-post-base64'] as const)(
    'answers 413 EMQ_PAYLOAD_TOO_LARGE for %s over the cap',
    async (name: FixtureName) => {
      const probe = services({ maxPayloadBytes: 4 });
      const served = await serve(fixture(name), REQUEST_ID, probe);
      expect(served.response.statusCode).toBe(413);
      expect(body(served.response.body)).toMatchObject({ code: 'EMQ_PAYLOAD_TOO_LARGE' });
      expect(probe.opened).toBe(0);
    },
  );

  it('admits a body of exactly the cap as far as the connection', async () => {
    const probe = services({ maxPayloadBytes: 5, failure: new UnavailableError('down') });
    const served = await serve(withBody(fixture('v2-post'), 'fives'), REQUEST_ID, probe);
    expect(served.response.statusCode).toBe(503);
    expect(probe.opened).toBe(1);
  });

  it('answers a HEAD without a body, even when the event is refused before routing', async () => {
    const event = withPath(
      { ...fixture('v2-get'), requestContext: { http: { method: 'HEAD' } } },
      '/queues/%/jobs/x',
    );
    const served = await serve(event, REQUEST_ID, services());
    expect(served.response.statusCode).toBe(400);
    expect(served.response.body).toBe('');
    expect(served.response.headers['x-request-id']).toBe(REQUEST_ID);
  });

  it('answers 400 EMQ_INVALID_REQUEST for an event that is not HTTP', async () => {
    const served = await serve({ Records: [] }, REQUEST_ID, services());
    expect(served.response.statusCode).toBe(400);
    expect(body(served.response.body)).toMatchObject({ code: 'EMQ_INVALID_REQUEST' });
  });

  it('answers 500 EMQ_CONFIG when the configuration is invalid', async () => {
    const broken: HttpServices = {
      admission: () => {
        throw new ConfigError('EMQ_MAX_PAYLOAD_BYTES is invalid: expected a whole number.');
      },
    };
    const served = await serve(fixture('v2-post'), REQUEST_ID, broken);
    expect(served.response.statusCode).toBe(500);
    expect(body(served.response.body)).toMatchObject({ code: 'EMQ_CONFIG', retryable: false });
  });
});

describe('serve, a 1 MiB value anywhere', () => {
  const huge = 'x'.repeat(1024 * 1024);
  const batchOf = (jobs: unknown[]) =>
    withBody(fixture('v2-post', { batch: true }), JSON.stringify({ jobs }));
  it.each([
    ['a queue', () => withPath(fixture('v2-post'), `/queues/${huge}/jobs`)],
    ['a job id', () => withPath(fixture('url-put'), `/queues/q/jobs/${huge}`)],
    ['an Idempotency-Key', () => withHeader(fixture('v1-post'), 'Idempotency-Key', huge)],
    ['a batch item id', () => batchOf([{ payload: 'a', id: huge }])],
    ['a batch item key', () => batchOf([{ payload: 'a', idempotencyKey: huge }])],
    ['a batch member name', () => batchOf([{ payload: 'a', [huge]: 1 }])],
    [
      'a batch member name given twice',
      () =>
        withBody(
          fixture('v2-post', { batch: true }),
          `{"jobs":[{"payload":"a","${huge}":1,"${huge}":2}]}`,
        ),
    ],
    [
      '25 items with long ids',
      () =>
        batchOf(Array.from({ length: 25 }, () => ({ payload: 'a', id: huge.slice(0, 100_000) }))),
    ],
  ])('answers a problem that quotes a bounded part of %s', async (_what, event) => {
    const served = await serve(event(), REQUEST_ID, services());
    expect(served.response.statusCode).toBe(400);
    expect(served.response.body.length).toBeLessThan(16 * 1024);
    for (const line of [served.response.body]) expect(line).not.toContain('x'.repeat(300));
  });
});

describe('report', () => {
  const lines: string[] = [];
  let previous: LogSink | undefined;
  beforeEach(() => {
    lines.length = 0;
    previous = setLogSink((line) => lines.push(line));
  });
  afterEach(() => {
    if (previous !== undefined) setLogSink(previous);
  });

  it('writes one line that is both the request log and its EMF record, without the payload', async () => {
    const served = await serve(fixture('v2-post'), REQUEST_ID, services({ maxPayloadBytes: 4 }));
    report(served, REQUEST_ID, 12.3456);
    expect(lines).toHaveLength(1);
    const logLine = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    const metricLine = logLine;
    expect(logLine).toMatchObject({
      level: 'info',
      message: 'http request',
      requestId: REQUEST_ID,
      format: 'v2',
      route: 'POST /queues/{queue}/jobs',
      queue: 'orders',
      status: 413,
      outcome: 'EMQ_PAYLOAD_TOO_LARGE',
      durationMs: 12.35,
    });
    expect(metricLine).toMatchObject({
      // The deployment the construct names (EMQ_DEPLOYMENT); unset here, the row's default.
      Deployment: 'local',
      Face: 'http',
      Outcome: 'EMQ_PAYLOAD_TOO_LARGE',
      Requests: 1,
      Latency: 12.35,
      _aws: {
        CloudWatchMetrics: [
          {
            Namespace: 'EchoMQ/Lambda',
            Dimensions: [
              ['Deployment', 'Face', 'Outcome'],
              ['Deployment', 'Face'],
            ],
            Metrics: [
              { Name: 'Requests', Unit: 'Count' },
              { Name: 'Latency', Unit: 'Milliseconds' },
              { Name: 'ServerErrors', Unit: 'Count' },
              { Name: 'AdmittedJobs', Unit: 'Count' },
            ],
          },
        ],
      },
    });
    expect(lines.join('\n')).not.toContain('A-113');
    expect(lines.join('\n')).not.toContain(JSON.stringify(FIXTURE_TEXT_BODY));
  });

  it("logs a 503 as a warning with the error class and its cause's code and text, never an address", async () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:6379'), {
      code: 'ECONNREFUSED',
    });
    const served = await serve(
      fixture('url-post'),
      REQUEST_ID,
      services({ failure: new UnavailableError('Valkey is unavailable.', { cause }) }),
    );
    report(served, REQUEST_ID, 1);
    const logLine = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(logLine).toMatchObject({
      level: 'warn',
      status: 503,
      outcome: 'EMQ_UNAVAILABLE',
      error: 'UnavailableError',
      errorCode: 'EMQ_UNAVAILABLE',
      cause: 'ECONNREFUSED',
      causeText: 'connect ECONNREFUSED <address>',
    });
    expect(lines.join('\n')).not.toContain('10.0.0.7');
    expect(lines.join('\n')).not.toContain('stack');
  });

  it('logs an unknown 500 as an error without its message', async () => {
    const served = await serve(
      fixture('v1-post'),
      REQUEST_ID,
      services({ failure: new TypeError('cannot read redis://admin:hunter2@10.0.0.7') }),
    );
    report(served, REQUEST_ID, 1);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({
      level: 'error',
      status: 500,
      outcome: 'EMQ_UNKNOWN',
      error: 'RefusedError',
      causeText: 'cannot read redis://<credentials>@<address>',
    });
    expect(served.response.body).not.toContain('hunter2');
    expect(lines.join('\n')).not.toContain('hunter2');
  });
});
