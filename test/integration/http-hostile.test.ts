// Fail closed on hostile input (docs/security.md): the built HTTP bundle, in a process of its
// own on a real server, refuses every event that is not valid in full with a 400 naming what
// is wrong, and the dataset is then byte for byte what it was. What it sends back never
// carries CR or LF in a header, a path prefix reaches Location percent-encoded, and a log
// line quotes at most 256 bytes of any caller value. A batch that fails whole for one
// server-side cause answers that cause (docs/reliability.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpResponse } from '../../functions/http/responses.js';
import { install } from '../../src/connection/fence.js';
import { fixture, type HttpEventJson, withBody } from '../fixtures/http/events.js';
import { ADMIN, usersWithAdmin } from '../support/admin-user.js';
import { connectTo } from '../support/emq.js';
import { type RunningHttpFace, startHttpFace } from '../support/functions.js';
import { assertMatchesContract } from '../support/openapi.js';
import { digestOf, randomQueue, type ServerHandle, startStandalone } from '../support/servers.js';
import { waitFor } from '../support/wait.js';

const APP = { username: 'app', password: 'app-password-for-tests' } as const;
/** May do everything but admit: every admission is refused NOPERM by the server. */
const NO_ADMIT = { username: 'no-admit', password: 'no-admit-password-for-tests' } as const;

let server: ServerHandle;
let face: RunningHttpFace;
let refusedFace: RunningHttpFace;

beforeAll(async () => {
  server = await startStandalone({
    module: true,
    auth: ADMIN,
    extraArgs: usersWithAdmin(
      [APP.username, 'on', `>${APP.password}`, '~*', '&*', '+@all'],
      [NO_ADMIT.username, 'on', `>${NO_ADMIT.password}`, '~*', '&*', '+@all', '-emq.admit'],
    ),
  });
  await install(await connectTo(server, { ...ADMIN, checkFence: false }));
  const as = (user: { username: string; password: string }) => ({
    env: { EMQ_USERNAME: user.username, EMQ_PASSWORD: user.password },
  });
  [face, refusedFace] = await Promise.all([
    startHttpFace(server, as(APP)),
    startHttpFace(server, as(NO_ADMIT)),
  ]);
}, 180_000);

afterAll(async () => {
  await Promise.all([face?.stop(), refusedFace?.stop()]);
  await server?.stop();
});

interface Answer {
  readonly response: HttpResponse;
  readonly body: Record<string, unknown>;
}

async function send(event: HttpEventJson, through = face): Promise<Answer> {
  const response = (await through.invoke(event)) as HttpResponse;
  for (const [name, value] of Object.entries(response.headers)) {
    expect(`${name}: ${value}`).not.toMatch(/[\r\n]/);
  }
  return {
    response,
    body: response.body === '' ? {} : (JSON.parse(response.body) as Record<string, unknown>),
  };
}

/** Sends `event`, expects a 400 EMQ_INVALID_REQUEST, and that nothing was written. */
async function refused(event: HttpEventJson, through = face): Promise<Answer> {
  const before = await digestOf(server);
  const answer = await send(event, through);
  expect(answer.response.statusCode, answer.response.body).toBe(400);
  expect(answer.body).toMatchObject({ code: 'EMQ_INVALID_REQUEST', retryable: false });
  expect(await digestOf(server)).toBe(before);
  return answer;
}

function batch(queue: string, body: string, form: 'v2' | 'v1' | 'url' = 'v2'): HttpEventJson {
  return withBody(fixture(`${form}-post`, { queue, batch: true }), body);
}

describe('a batch body', () => {
  it('with lone surrogates in two payloads under one key is refused, naming both items', async () => {
    const queue = randomQueue('hostile');
    const body =
      '{"jobs":[{"payload":"\\ud800","idempotencyKey":"s1"},{"payload":"\\udbff","idempotencyKey":"s1"}]}';
    const { body: problem } = await refused(batch(queue, body));
    expect(problem.items).toEqual([
      expect.objectContaining({ index: 0, detail: expect.stringMatching(/surrogate.*"payload"/) }),
      expect.objectContaining({ index: 1, detail: expect.stringMatching(/surrogate.*"payload"/) }),
    ]);
  });

  it.each([
    ['an idempotencyKey', '{"jobs":[{"payload":"a"},{"payload":"b","idempotencyKey":"k\\udc00"}]}'],
    ['an id', '{"jobs":[{"payload":"a"},{"payload":"b","id":"JOB0KHTOWnGLu\\ud83d"}]}'],
    ['a member name', '{"jobs":[{"payload":"a"},{"payload":"b","\\ud800":"x"}]}'],
  ])('with a lone surrogate in %s is refused, naming the item', async (_what, body) => {
    const { body: problem } = await refused(batch(randomQueue('hostile'), body));
    expect(problem.items).toEqual([
      expect.objectContaining({ index: 1, detail: expect.stringMatching(/surrogate/) }),
    ]);
  });

  it('keeps a surrogate pair: an escaped emoji is stored as its four UTF-8 bytes', async () => {
    const queue = randomQueue('hostile');
    const { response } = await send(batch(queue, '{"jobs":[{"payload":"\\ud83d\\ude00"}]}'));
    expect(response.statusCode).toBe(200);
    const row = await (await server.client()).hgetallBuffer(
      `emq:{${queue}}:job:${String((JSON.parse(response.body) as { results: { id: string }[] }).results[0]?.id)}`,
    );
    expect(row.payload?.toString('hex')).toBe('f09f9880');
  });

  it.each([
    ['"payload" twice in an item', '{"jobs":[{"payload":"a"},{"payload":"b","payload":"c"}]}', 1],
    [
      '"idempotencyKey" twice, one spelt with escapes',
      '{"jobs":[{"payload":"b","idempotencyKey":"x","idempotency\\u004bey":"y"}]}',
      0,
    ],
    ['"jobs" twice', '{"jobs":[{"payload":"a"}],"jobs":[{"payload":"b"}]}', undefined],
  ])('with %s is refused, naming the member', async (_what, body, item) => {
    const { body: problem } = await refused(batch(randomQueue('hostile'), body));
    const named = /gives the member "(payload|idempotencyKey|jobs)" more than once/;
    if (item === undefined) {
      expect(String(problem.detail)).toMatch(named);
      expect(problem.items).toBeUndefined();
    } else {
      expect(problem.items).toEqual([
        expect.objectContaining({ index: item, detail: expect.stringMatching(named) }),
      ]);
    }
  });
});

describe('an event with a field of the wrong type', () => {
  const queue = () => randomQueue('hostile');
  const cases: readonly (readonly [string, () => HttpEventJson])[] = [
    [
      'a v2 body that is an object',
      () => ({ ...fixture('v2-post', { queue: queue() }), body: { a: 1 } }),
    ],
    ['a v1 body that is a number', () => ({ ...fixture('v1-post', { queue: queue() }), body: 7 })],
    [
      'a Function URL body that is an array',
      () => ({ ...fixture('url-post', { queue: queue() }), body: ['x'] }),
    ],
    [
      'a v2 isBase64Encoded that is a string',
      () => ({ ...fixture('v2-post', { queue: queue() }), isBase64Encoded: 'false' }),
    ],
    [
      'a v2 Idempotency-Key header that is a number',
      () => {
        const event = fixture('v2-post', { queue: queue() });
        return { ...event, headers: { ...(event.headers as object), 'idempotency-key': 42 } };
      },
    ],
    [
      'a v1 header that is a number',
      () => {
        const event = fixture('v1-post', { queue: queue() });
        return { ...event, headers: { ...(event.headers as object), 'Idempotency-Key': 42 } };
      },
    ],
    [
      'v1 multiValueHeaders holding a string, not a list',
      () => {
        const event = fixture('v1-post', { queue: queue() });
        return {
          ...event,
          multiValueHeaders: { ...(event.multiValueHeaders as object), Accept: '*/*' },
        };
      },
    ],
    [
      'v1 multiValueHeaders holding a number in a list',
      () => {
        const event = fixture('v1-post', { queue: queue() });
        return {
          ...event,
          multiValueHeaders: { ...(event.multiValueHeaders as object), 'Idempotency-Key': [7] },
        };
      },
    ],
    ['a v1 path that is a number', () => ({ ...fixture('v1-post', { queue: queue() }), path: 5 })],
    [
      'a v1 requestContext.path that is a number',
      () => {
        const event = fixture('v1-post', { queue: queue() });
        return { ...event, requestContext: { ...(event.requestContext as object), path: 9 } };
      },
    ],
    [
      'v1 pathParameters that is a string',
      () => ({ ...fixture('v1-post', { queue: queue() }), pathParameters: 'orders' }),
    ],
    [
      'a v2 requestContext.domainName that is a number',
      () => {
        const event = fixture('url-post', { queue: queue() });
        return { ...event, requestContext: { ...(event.requestContext as object), domainName: 1 } };
      },
    ],
    [
      'v2 headers that are a list',
      () => ({ ...fixture('v2-post', { queue: queue() }), headers: ['idempotency-key: a'] }),
    ],
  ];

  it.each(cases)('%s is refused 400, writing nothing', async (_what, event) => {
    const { body } = await refused(event());
    expect(String(body.detail)).toMatch(/must be|is not/);
  });

  it('where AWS sends null (v1 without headers or body) is served', async () => {
    const event = fixture('v1-post', { queue: randomQueue('hostile') });
    const { response } = await send({
      ...event,
      headers: null,
      multiValueHeaders: null,
      body: null,
      pathParameters: null,
    });
    expect(response.statusCode).toBe(201);
  });
});

describe('an Idempotency-Key sent twice under any spelling', () => {
  const v1 = (headers: object, multi: object) => ({
    ...fixture('v1-post', { queue: randomQueue('hostile') }),
    headers,
    multiValueHeaders: multi,
  });
  const v2 = (headers: object, form: 'v2-post' | 'url-post' = 'v2-post') => ({
    ...fixture(form, { queue: randomQueue('hostile') }),
    headers,
  });
  const cases: readonly (readonly [string, () => HttpEventJson])[] = [
    [
      'v1 multiValueHeaders, two spellings',
      () => v1({ 'idempotency-key': 'B' }, { 'Idempotency-Key': ['A'], 'idempotency-key': ['B'] }),
    ],
    [
      'v1 multiValueHeaders, two values',
      () => v1({ 'Idempotency-Key': 'B' }, { 'Idempotency-Key': ['A', 'B'] }),
    ],
    ['v1 headers, two spellings', () => v1({ 'Idempotency-Key': 'A', 'IDEMPOTENCY-KEY': 'B' }, {})],
    [
      'v1 headers and multiValueHeaders disagreeing',
      () => v1({ 'Idempotency-Key': 'A' }, { 'Idempotency-Key': ['B'] }),
    ],
    ['v2 headers, two spellings', () => v2({ 'Idempotency-Key': 'A', 'idempotency-key': 'B' })],
    [
      'Function URL headers, two spellings',
      () => v2({ 'idempotency-key': 'A', 'Idempotency-key': 'A' }, 'url-post'),
    ],
    ['v2, values joined with a comma', () => v2({ 'idempotency-key': 'A,B' })],
  ];

  it.each(cases)('in %s is refused 400 naming it, writing nothing', async (_what, event) => {
    const { body } = await refused(event());
    expect(String(body.detail)).toContain('Idempotency-Key');
  });

  it('once in v1 headers and multiValueHeaders alike is one key: a replay is its duplicate', async () => {
    const queue = randomQueue('hostile');
    const event = {
      ...fixture('v1-post', { queue }),
      headers: { 'Idempotency-Key': 'one' },
      multiValueHeaders: { 'Idempotency-Key': ['one'] },
    };
    const first = await send(event);
    const again = await send(event);
    expect([first.response.statusCode, again.response.statusCode]).toEqual([201, 200]);
    expect(again.body.id).toBe(first.body.id);
  });
});

describe('a path prefix', () => {
  /** A REST event whose requestContext.path holds `prefix` in front of the routed path. */
  const rest = (queue: string, prefix: string) => {
    const event = fixture('v1-post', { queue });
    const context = event.requestContext as Record<string, unknown>;
    return { ...event, requestContext: { ...context, path: `${prefix}${String(event.path)}` } };
  };
  const v2 = (queue: string, prefix: string) => {
    const event = fixture('url-post', { queue });
    return { ...event, rawPath: `${prefix}${String(event.rawPath)}` };
  };

  it.each([
    ['a REST prefix with CR LF', rest, '/st\r\nSet-Cookie: a=b', '/st%0D%0ASet-Cookie%3A%20a%3Db'],
    [
      'a REST prefix that is an absolute URL',
      rest,
      'https://elsewhere.example/prod',
      '/https%3A/elsewhere.example/prod',
    ],
    ['a REST prefix starting //host', rest, '//elsewhere.example', '/elsewhere.example'],
    ['a REST prefix with a backslash', rest, '/\\elsewhere.example', '/%5Celsewhere.example'],
    ['a Function URL path starting //host', v2, '//elsewhere.example', '/elsewhere.example'],
  ])('%s reaches Location percent-encoded, on the same host', async (_what, make, prefix, kept) => {
    const queue = randomQueue('hostile');
    const { response, body } = await send(make(queue, prefix));
    expect(response.statusCode).toBe(201);
    const location = String(response.headers.location);
    expect(location).toBe(`${kept}/queues/${queue}/jobs/${String(body.id)}`);
    expect(new URL(location, 'https://api.example').host).toBe('api.example');
  });
});

describe('a batch every item of which the server refuses for one cause', () => {
  it('answers that cause, 500 EMQ_CONFIG, and writes nothing', async () => {
    const queue = randomQueue('hostile');
    const before = await digestOf(server);
    const event = batch(
      queue,
      JSON.stringify({ jobs: [{ payload: 'a' }, { payload: 'b', idempotencyKey: 'k' }] }),
    );
    const { response, body } = await send(event, refusedFace);
    expect(response.statusCode).toBe(500);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(body).toMatchObject({ status: 500, code: 'EMQ_CONFIG', retryable: false });
    assertMatchesContract({ method: 'POST', path: `/queues/${queue}/jobs/batch` }, response);
    expect(await digestOf(server)).toBe(before);
  });

  it('a single POST refused the same way answers 500 too (the rule the batch follows)', async () => {
    const { response, body } = await send(
      fixture('v2-post', { queue: randomQueue('hostile') }),
      refusedFace,
    );
    expect(response.statusCode).toBe(500);
    expect(body).toMatchObject({ code: 'EMQ_CONFIG' });
  });
});

describe('the log of a request with a 1 MiB value', () => {
  it('quotes at most 256 bytes of it, and the problem too', async () => {
    const long = 'q'.repeat(1024 * 1024);
    const event = { ...fixture('v2-post'), rawPath: `/queues/${long}/jobs` };
    const logged = face.log.length;
    const { response } = await send(event);
    expect(response.statusCode).toBe(400);
    expect(response.body.length).toBeLessThan(2048);
    await waitFor("the request's log line", 10_000, async () =>
      face.log.slice(logged).some((line) => line.includes('"http request"'))
        ? undefined
        : `${face.log.length - logged} lines so far`,
    );
    const lines = face.log.slice(logged);
    for (const line of lines) {
      expect(line.length).toBeLessThan(4096);
      const record = JSON.parse(line) as Record<string, unknown>;
      for (const value of Object.values(record)) {
        if (typeof value === 'string') expect(Buffer.byteLength(value)).toBeLessThanOrEqual(256);
      }
    }
  });
});
