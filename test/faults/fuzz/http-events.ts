/**
 * Generated HTTP events: the three recorded fronts (payload 2.0, payload 1.0, Function URLs)
 * with their method, path, headers, body and base64 flag drawn from the pools, plus events that
 * are malformed outright (wrong types, missing fields, anything at all), as a direct invoke
 * could send. Paths carry prefixes an attacker chooses (CR LF, `https://evil`, `//evil`, in
 * payload 1.0's requestContext.path and in the raw path), values run to 1 MiB, and the batch
 * route gets bodies built from the same pools.
 */
import fc from 'fast-check';
import { fixture, type HttpEventJson, withHeader } from '../../fixtures/http/events.js';
import {
  brokenBase64Arb,
  idempotencyKeyArb,
  jobIdArb,
  ONE_MIB,
  payloadArb,
  queueArb,
} from './pools.js';

type Front = 'v2' | 'v1' | 'url';

interface HttpCase {
  readonly front: Front;
  readonly method: string;
  readonly path: string;
  /** Payload 1.0: what requestContext.path holds in front of `path` (the stage, as sent). */
  readonly mount: string;
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

/**
 * Prefixes no front forwards as they are but a direct invoke (or a REST API custom domain's
 * base path) can: each must reach `Location` as a path on the API's own origin, without CR or LF.
 */
const HOSTILE_PREFIXES = [
  '/st\r\nSet-Cookie: a=b',
  '\r\nLocation: https://evil',
  'https://evil',
  'https://evil/',
  '//evil',
  '//evil.example/x',
  '/\\evil',
  '\\evil',
  'javascript:alert(1)//',
  '/a b',
  '/%0d%0aSet-Cookie:%20a=b',
  '/\u0000',
];

function prefixArb(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...PREFIXES) },
    { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_PREFIXES) },
  );
}

/** Payload 1.0's stage as requestContext.path shows it: `/prod`, or a hostile prefix. */
function mountArb(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant('/prod') },
    { weight: 1, arbitrary: fc.constantFrom('', ...HOSTILE_PREFIXES) },
  );
}

/** A method and a path: mostly a route's own pair, sometimes any method on any path. */
function targetArb(queues: readonly string[]): fc.Arbitrary<{ method: string; path: string }> {
  const queue = segmentArb(queueArb(queues));
  const id = segmentArb(jobIdArb());
  const prefix = prefixArb();
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
    { weight: 30, arbitrary: fc.tuple(fc.constant('Idempotency-Key'), idempotencyKeyArb()) },
    { weight: 20, arbitrary: fc.tuple(name, fc.string({ maxLength: 40 })) },
    {
      weight: 10,
      arbitrary: fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 40 })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(name, fc.constantFrom('k\r\nSet-Cookie: a=b', 'k\nX: y', 'k\r')),
    },
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
      mount: mountArb(),
      headers: headersArb(),
      body: bodyArb(),
    })
    .map(({ front, target, mount, headers, body }) => ({
      front,
      method: target.method,
      path: target.path,
      mount,
      headers,
      body: body.body,
      base64: body.base64,
    }));
}

/** One batch item from the pools: text or base64 payload, keyed by nothing, a key or an id. */
function batchItemArb(): fc.Arbitrary<Record<string, string>> {
  const payload = fc.oneof(
    payloadArb().map((bytes) => ({ payload: Buffer.from(bytes).toString('utf8') })),
    payloadArb().map((bytes) => ({
      payload: Buffer.from(bytes).toString('base64'),
      encoding: 'base64',
    })),
  );
  const key = fc.oneof(
    { weight: 2, arbitrary: fc.constant({}) },
    { weight: 2, arbitrary: idempotencyKeyArb().map((idempotencyKey) => ({ idempotencyKey })) },
    { weight: 1, arbitrary: jobIdArb().map((id) => ({ id })) },
  );
  return fc.tuple(payload, key).map(([p, k]) => ({ ...p, ...k }));
}

/** A POST to the batch route with a body of 1 to 5 items (JSON as a client library writes it). */
function batchCaseArb(queues: readonly string[]): fc.Arbitrary<HttpCase> {
  return fc
    .record({
      front: fc.constantFrom<Front>('v2', 'v1', 'url'),
      prefix: prefixArb(),
      queue: segmentArb(queueArb(queues)),
      mount: mountArb(),
      jobs: fc.array(batchItemArb(), { minLength: 1, maxLength: 5 }),
      base64: fc.boolean(),
    })
    .map(({ front, prefix, queue, mount, jobs, base64 }) => {
      const text = JSON.stringify({ jobs });
      return {
        front,
        method: 'POST',
        path: `${prefix}/queues/${queue}/jobs/batch`,
        mount,
        headers: [['content-type', 'application/json']],
        body: base64 ? Buffer.from(text).toString('base64') : text,
        base64,
      };
    });
}

/** Renders a case on its front's recorded event, as that front would deliver it. */
function render(spec: HttpCase): HttpEventJson {
  let event: HttpEventJson = structuredClone(TEMPLATES[spec.front]);
  if (spec.front === 'v1') {
    event.httpMethod = spec.method;
    event.path = spec.path;
    const context = event.requestContext as Record<string, unknown>;
    event.requestContext = {
      ...context,
      httpMethod: spec.method,
      path: `${spec.mount}${spec.path}`,
      stage: spec.mount.replace(/^\//, ''),
    };
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

/** Where an over-long value goes: each is a place a log line or a header could quote it. */
const OVER_LONG: Readonly<Record<string, (spec: HttpCase) => HttpCase>> = {
  queue: (spec) => ({ ...spec, path: `/queues/${ONE_MIB}/jobs`, method: 'POST' }),
  id: (spec) => ({ ...spec, path: `/queues/q/jobs/JOB${ONE_MIB}`, method: 'PUT' }),
  key: (spec) => ({ ...spec, headers: [...spec.headers, ['Idempotency-Key', ONE_MIB]] }),
  header: (spec) => ({ ...spec, headers: [...spec.headers, ['x-padding', ONE_MIB]] }),
  prefix: (spec) => ({ ...spec, path: `/${ONE_MIB}${spec.path}` }),
  mount: (spec) => ({ ...spec, mount: `/${ONE_MIB}` }),
};

/**
 * A case with one value of 1 MiB. Rare in a run: the OpenAPI check of an answer to a 1 MiB
 * path alone takes tens of milliseconds.
 */
function overLongArb(queues: readonly string[]): fc.Arbitrary<HttpCase> {
  return fc
    .tuple(caseArb(queues), fc.constantFrom(...Object.keys(OVER_LONG)))
    .map(([spec, where]) => (OVER_LONG[where] as (spec: HttpCase) => HttpCase)(spec));
}

/** HTTP events: well-formed on the three fronts (most), and malformed ones. */
export function httpEventArb(queues: readonly string[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 50, arbitrary: caseArb(queues).map(render) },
    { weight: 10, arbitrary: batchCaseArb(queues).map(render) },
    { weight: 10, arbitrary: malformedArb(queues) },
    { weight: 1, arbitrary: overLongArb(queues).map(render) },
  );
}

/** Header names a report shows: those the function reads, and those a generator adds. */
const SHOWN_HEADER = /idempot|padding|content-length/i;

function shownHeaders(headers: unknown): unknown {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return headers;
  return Object.fromEntries(
    Object.entries(headers).filter(
      ([name, value]) =>
        SHOWN_HEADER.test(name) || (typeof value !== 'string' && !Array.isArray(value)),
    ),
  );
}

/**
 * What a report needs of an event: its form, method, paths, the headers that matter, its body
 * and base64 flag (the recorded fronts' other fields are the fixtures', and long).
 */
export function describeEvent(event: unknown): unknown {
  if (typeof event !== 'object' || event === null) return event;
  const fields = event as HttpEventJson;
  const context = fields.requestContext as Record<string, unknown> | undefined;
  const http = context?.http as Record<string, unknown> | undefined;
  const v1 = 'httpMethod' in fields;
  return {
    form: v1 ? 'v1' : 'rawPath' in fields ? 'v2/url' : 'other',
    method: v1 ? fields.httpMethod : http?.method,
    ...(v1 ? { path: fields.path, contextPath: context?.path } : { rawPath: fields.rawPath }),
    headers: shownHeaders(fields.headers),
    ...(v1 ? { multiValueHeaders: shownHeaders(fields.multiValueHeaders) } : {}),
    body: fields.body,
    isBase64Encoded: fields.isBase64Encoded,
    ...(fields.isBase64Encoded === true && typeof fields.body === 'string'
      ? { decoded: Buffer.from(fields.body, 'base64').toString('utf8') }
      : {}),
  };
}
