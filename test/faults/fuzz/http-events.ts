/**
 * Generated HTTP events: the three recorded fronts (payload 2.0, payload 1.0, Function URLs)
 * with their method, path, headers, body and base64 flag drawn from the pools, plus events that
 * are malformed outright (wrong types, missing fields, anything at all), as a direct invoke
 * could send.
 */
import fc from 'fast-check';
import { fixture, type HttpEventJson, withHeader } from '../../fixtures/http/events.js';
import { brokenBase64Arb, idempotencyKeyArb, jobIdArb, payloadArb, queueArb } from './pools.js';

type Front = 'v2' | 'v1' | 'url';

interface HttpCase {
  readonly front: Front;
  readonly method: string;
  readonly path: string;
  readonly headers: readonly (readonly [string, string])[];
  /** Undefined: no body field at all. */
  readonly body: string | undefined;
  readonly base64: boolean;
}

const TEMPLATES: Readonly<Record<Front, HttpEventJson>> = {
  v2: fixture('v2-post'),
  v1: fixture('v1-post'),
  url: fixture('url-post'),
};

/** Percent-encodes a path segment the way a client would, or leaves it raw, or breaks it. */
function segmentArb(value: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: value.map(encodeURIComponent) },
    { weight: 1, arbitrary: value },
    { weight: 1, arbitrary: fc.constantFrom('%', '%E0%A4%A', '%zz', '%00', '%2F', '') },
  );
}

const PREFIXES = ['', '/prod', '/v1/api', '/queues', '//'];

/** A method and a path: mostly a route's own pair, sometimes any method on any path. */
function targetArb(queues: readonly string[]): fc.Arbitrary<{ method: string; path: string }> {
  const queue = segmentArb(queueArb(queues));
  const id = segmentArb(jobIdArb());
  const prefix = fc.constantFrom(...PREFIXES);
  const collection = fc.tuple(prefix, queue).map(([p, q]) => `${p}/queues/${q}/jobs`);
  const item = fc.tuple(prefix, queue, id).map(([p, q, i]) => `${p}/queues/${q}/jobs/${i}`);
  const odd = fc.oneof(
    fc.constantFrom(
      '/',
      '',
      '/queues',
      '/queues//jobs',
      '/queues/q/jobs/',
      '/queues/q/jobs/JOB0KHTOWnGLuC/extra',
      '/queues/queues/jobs/jobs',
      '/QUEUES/q/JOBS',
    ),
    fc.webPath(),
  );
  const method = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('POST', 'PUT', 'GET') },
    { weight: 1, arbitrary: fc.constantFrom('post', 'Put', 'DELETE', 'PATCH', 'HEAD', '') },
  );
  return fc.oneof(
    { weight: 4, arbitrary: collection.map((path) => ({ method: 'POST', path })) },
    { weight: 3, arbitrary: item.map((path) => ({ method: 'PUT', path })) },
    { weight: 2, arbitrary: item.map((path) => ({ method: 'GET', path })) },
    {
      weight: 1,
      arbitrary: fc.record({ method, path: fc.oneof(collection, item, odd) }),
    },
  );
}

function headersArb(): fc.Arbitrary<(readonly [string, string])[]> {
  const name = fc.constantFrom(
    'Idempotency-Key',
    'idempotency-key',
    'IDEMPOTENCY-KEY',
    'content-type',
    'Content-Length',
    'x-forwarded-for',
  );
  const pair = fc.oneof(
    { weight: 3, arbitrary: fc.tuple(fc.constant('Idempotency-Key'), idempotencyKeyArb()) },
    { weight: 2, arbitrary: fc.tuple(name, fc.string({ maxLength: 40 })) },
    { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 40 })) },
  );
  return fc.array(pair, { maxLength: 4 });
}

function bodyArb(): fc.Arbitrary<{ body: string | undefined; base64: boolean }> {
  return fc.oneof(
    {
      weight: 3,
      arbitrary: payloadArb().map((bytes) => ({
        body: Buffer.from(bytes).toString('base64'),
        base64: true,
      })),
    },
    {
      weight: 3,
      arbitrary: payloadArb().map((bytes) => ({
        body: Buffer.from(bytes).toString('utf8'),
        base64: false,
      })),
    },
    { weight: 1, arbitrary: brokenBase64Arb().map((body) => ({ body, base64: true })) },
    { weight: 1, arbitrary: fc.constant({ body: undefined, base64: false }) },
    {
      weight: 1,
      arbitrary: fc.string({ maxLength: 400 }).map((body) => ({ body, base64: false })),
    },
  );
}

function caseArb(queues: readonly string[]): fc.Arbitrary<HttpCase> {
  return fc
    .record({
      front: fc.constantFrom<Front>('v2', 'v1', 'url'),
      target: targetArb(queues),
      headers: headersArb(),
      body: bodyArb(),
    })
    .map(({ front, target, headers, body }) => ({
      front,
      method: target.method,
      path: target.path,
      headers,
      body: body.body,
      base64: body.base64,
    }));
}

/** Renders a case on its front's recorded event, as that front would deliver it. */
function render(spec: HttpCase): HttpEventJson {
  let event: HttpEventJson = structuredClone(TEMPLATES[spec.front]);
  if (spec.front === 'v1') {
    event.httpMethod = spec.method;
    event.path = spec.path;
    const context = event.requestContext as Record<string, unknown>;
    event.requestContext = { ...context, httpMethod: spec.method, path: `/prod${spec.path}` };
  } else {
    event.rawPath = spec.path;
    const context = event.requestContext as Record<string, unknown>;
    const http = context.http as Record<string, unknown>;
    event.requestContext = { ...context, http: { ...http, method: spec.method, path: spec.path } };
  }
  for (const [name, value] of spec.headers) event = withHeader(event, name, value);
  if (spec.body === undefined) delete event.body;
  else event.body = spec.body;
  event.isBase64Encoded = spec.base64;
  return event;
}

/** An event broken on purpose: a field of the wrong type or missing, or not an event at all. */
function malformedArb(queues: readonly string[]): fc.Arbitrary<unknown> {
  const wrong = fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.integer(),
    fc.boolean(),
    fc.string({ maxLength: 10 }),
    fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
    fc.object({ maxDepth: 1, maxKeys: 3 }),
  );
  const field = fc.constantFrom(
    'httpMethod',
    'rawPath',
    'path',
    'headers',
    'multiValueHeaders',
    'requestContext',
    'body',
    'isBase64Encoded',
  );
  const broken = fc
    .tuple(caseArb(queues), field, wrong)
    .map(([spec, name, value]) => ({ ...render(spec), [name]: value }));
  return fc.oneof(
    { weight: 4, arbitrary: broken },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<unknown>(
        {},
        { requestContext: { http: {} } },
        { rawPath: '/queues/q/jobs', requestContext: { http: { method: 7 } } },
        { httpMethod: 'POST' },
        { httpMethod: 'POST', path: 5, multiValueHeaders: { a: 'not-a-list' } },
      ),
    },
  );
}

/** HTTP events: well-formed on the three fronts (most), and malformed ones. */
export function httpEventArb(queues: readonly string[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 5, arbitrary: caseArb(queues).map(render) },
    { weight: 1, arbitrary: malformedArb(queues) },
  );
}
