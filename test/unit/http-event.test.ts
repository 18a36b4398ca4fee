import { describe, expect, it } from 'vitest';
import { type HttpRequest, MAX_REQUEST_BYTES, readEvent } from '../../functions/http/event.js';
import { InvalidInputError } from '../../src/index.js';
import {
  FIXTURE_BINARY_BODY,
  FIXTURE_IDEMPOTENCY_KEY,
  FIXTURE_TEXT_BODY,
  fixture,
  withPath,
} from '../fixtures/http/events.js';

/** The request an event is read into; throws its refusal. */
function parseEvent(event: unknown): HttpRequest {
  const read = readEvent(event);
  if (read.refusal !== undefined) throw read.refusal;
  return read.request;
}

describe('readEvent', () => {
  it('reads an HTTP API payload 2.0 event', () => {
    const request = parseEvent(fixture('v2-post'));
    expect(request.format).toBe('v2');
    expect(request.method).toBe('POST');
    expect(request.segments).toEqual(['queues', 'orders', 'jobs']);
    expect(request.mount).toEqual([]);
    expect(request.body.toString('utf8')).toBe(FIXTURE_TEXT_BODY);
  });

  it('reads a REST API payload 1.0 event', () => {
    const request = parseEvent(fixture('v1-put'));
    expect(request.format).toBe('v1');
    expect(request.method).toBe('PUT');
    expect(request.segments).toEqual(['queues', 'orders', 'jobs', 'JOB0KHTOWnGLuC']);
    expect(request.body.toString('utf8')).toBe(FIXTURE_TEXT_BODY);
  });

  it('tells a Function URL event from an HTTP API one by its domain', () => {
    const request = parseEvent(fixture('url-get'));
    expect(request.format).toBe('url');
    expect(request.method).toBe('GET');
    expect(request.segments).toEqual(['queues', 'orders', 'jobs', 'JOB0KHTOWnGLuC']);
  });

  it.each(['v2-post-base64', 'v1-post-base64', 'url-post-base64'] as const)(
    'decodes the base64 body of %s to the exact bytes sent',
    (name) => {
      expect(parseEvent(fixture(name)).body.equals(FIXTURE_BINARY_BODY)).toBe(true);
    },
  );

  it.each(['v2-post-base64', 'v1-post-base64', 'url-post-base64'] as const)(
    'refuses %s when its base64 body is not base64, rather than admitting an empty payload',
    (name) => {
      for (const body of ['***', 'abc', 'aGVsbG8', 'aGVs bG8=']) {
        expect(() => parseEvent({ ...fixture(name), body })).toThrow(/not valid base64/);
      }
    },
  );

  it.each(['v2-post', 'v1-put', 'v2-post-base64', 'v1-post-base64', 'url-post-base64'] as const)(
    'refuses a body of %s over 6 MiB with 413 from its length, base64 of megabytes included',
    (name) => {
      const base64 = name.endsWith('base64');
      const at = (bytes: number) => {
        const body = Buffer.alloc(bytes, 0x61);
        return { ...fixture(name), body: body.toString(base64 ? 'base64' : 'utf8') };
      };
      expect(parseEvent(at(MAX_REQUEST_BYTES)).body.length).toBe(MAX_REQUEST_BYTES);
      for (const bytes of [MAX_REQUEST_BYTES + 1, 9_000_000]) {
        let refused: unknown;
        try {
          parseEvent(at(bytes));
        } catch (error) {
          refused = error;
        }
        expect(refused).toBeInstanceOf(InvalidInputError);
        expect(refused).toMatchObject({ code: 'EMQ_PAYLOAD_TOO_LARGE', status: 413 });
        expect((refused as Error).message).toContain(`${bytes} bytes`);
      }
    },
  );

  it('decodes a base64 body of megabytes (a scan, not a backtracking expression)', () => {
    const bytes = Buffer.alloc(5_000_000, 0xfe);
    const event = { ...fixture('v2-post-base64'), body: bytes.toString('base64') };
    expect(parseEvent(event).body.equals(bytes)).toBe(true);
  });

  it('reads an event without a body as an empty body', () => {
    expect(parseEvent(fixture('v2-get')).body.length).toBe(0);
    expect(parseEvent(fixture('v1-get')).body.length).toBe(0);
  });

  it('lower-cases the mixed-case header names of a REST API event', () => {
    const headers = parseEvent(fixture('v1-post-idempotency-key')).headers;
    expect(headers['idempotency-key']).toBe(FIXTURE_IDEMPOTENCY_KEY);
    expect(headers['content-type']).toBe('application/json');
    expect(Object.keys(headers).every((name) => name === name.toLowerCase())).toBe(true);
  });

  it('reads a header that a REST API event carries only in multiValueHeaders', () => {
    const event = fixture('v1-post');
    const request = parseEvent({
      ...event,
      headers: null,
      multiValueHeaders: { 'Idempotency-Key': ['first', 'second'] },
    });
    expect(request.headers['idempotency-key']).toBe('second');
  });

  it('percent-decodes each segment of a 2.0 raw path once', () => {
    const request = parseEvent(withPath(fixture('v2-post'), '/queues/a%2541/jobs'));
    expect(request.segments).toEqual(['queues', 'a%41', 'jobs']);
  });

  it('does not decode a 1.0 path again, as API Gateway has decoded it', () => {
    const request = parseEvent(withPath(fixture('v1-post'), '/queues/a%41/jobs'));
    expect(request.segments).toEqual(['queues', 'a%41', 'jobs']);
  });

  it('keeps the REST stage the 1.0 path leaves out, for Location', () => {
    expect(parseEvent(fixture('v1-post')).mount).toEqual(['prod']);
  });

  it('keeps a named stage of an HTTP API in the segments, where 2.0 puts it', () => {
    const request = parseEvent(fixture('v2-stage-post'));
    expect(request.segments).toEqual(['prod', 'queues', 'orders', 'jobs']);
    expect(request.mount).toEqual([]);
  });

  it('refuses a raw path with a malformed percent-encoding as an invalid request', () => {
    expect(() => parseEvent(withPath(fixture('v2-post'), '/queues/a%E0%A4%A/jobs'))).toThrow(
      expect.objectContaining({ code: 'EMQ_INVALID_REQUEST', status: 400 }),
    );
  });

  it.each([
    ['null', null],
    ['a string', 'POST /queues/q/jobs'],
    ['an SQS event', { Records: [{ messageId: 'm1', body: 'x' }] }],
    ['a 2.0 event without requestContext.http', { version: '2.0', rawPath: '/queues/q/jobs' }],
  ])('refuses %s as not an HTTP event', (_what, event) => {
    expect(() => parseEvent(event)).toThrow(InvalidInputError);
  });
});

describe('readEvent, HEAD', () => {
  const v2Head = (extra: Record<string, unknown>) => {
    const event = fixture('v2-post') as unknown as { requestContext: { http: { method: string } } };
    return {
      ...event,
      requestContext: {
        ...event.requestContext,
        http: { ...event.requestContext.http, method: 'HEAD' },
      },
      ...extra,
    };
  };

  it('marks a HEAD by the method the request is read with, so its answer never gets a body', () => {
    expect(readEvent(v2Head({})).head).toBe(true);
    // Found by the HTTP fuzz: a 2.0 event with a non-string httpMethod is still a 2.0 HEAD,
    // refused for that field (a field of the wrong type), its answer without a body.
    const typed = readEvent(v2Head({ httpMethod: false }));
    expect(typed.head).toBe(true);
    expect(typed.refusal).toMatchObject({ code: 'EMQ_INVALID_REQUEST', status: 400 });
    expect(typed.refusal?.message).toContain('"httpMethod"');
    expect(parseEvent(v2Head({})).head).toBe(true);
    expect(readEvent(fixture('v1-put')).head).toBe(false);
    expect(readEvent({ httpMethod: 'head' }).head).toBe(true);
  });

  it('keeps the HEAD of an event refused once its method is read', () => {
    const malformed = readEvent(withPath(v2Head({}), '/queues/%/jobs/x'));
    expect(malformed.head).toBe(true);
    expect(malformed.refusal).toMatchObject({ code: 'EMQ_INVALID_REQUEST', status: 400 });
    const pathless = readEvent({ requestContext: { http: { method: 'HEAD' } } });
    expect(pathless.head).toBe(true);
    expect(pathless.refusal).toBeInstanceOf(InvalidInputError);
    expect(readEvent({ Records: [] }).head).toBe(false);
  });
});

describe('readEvent, fail closed', () => {
  const refusalOf = (event: unknown) => readEvent(event).refusal;

  it.each([
    ['v2-post', 'body', { a: 1 }],
    ['v2-post', 'body', 7],
    ['v1-post', 'body', ['x']],
    ['url-post', 'isBase64Encoded', 'true'],
    ['v2-post', 'headers', ['a']],
    ['v2-post', 'headers', { 'idempotency-key': 42 }],
    ['v1-post', 'headers', { 'Idempotency-Key': true }],
    ['v1-post', 'multiValueHeaders', { Accept: '*/*' }],
    ['v1-post', 'multiValueHeaders', { Accept: [] }],
    ['v1-post', 'multiValueHeaders', { Accept: [1] }],
    ['v1-post', 'path', 5],
    ['v1-post', 'pathParameters', 'orders'],
    ['v1-post', 'requestContext', 'ctx'],
    ['v2-post', 'rawQueryString', 1],
    ['v2-post', 'cookies', 'a=b'],
    ['url-post', 'queryStringParameters', { a: 1 }],
  ] as const)('refuses %s whose %s is %j, naming the field', (name, field, value) => {
    const refusal = refusalOf({ ...fixture(name), [field]: value });
    expect(refusal).toMatchObject({ code: 'EMQ_INVALID_REQUEST', status: 400 });
    expect(refusal?.message).toContain(`"${field}"`);
  });

  it.each([
    ['v1-post', 'path', 9],
    ['v1-post', 'stage', false],
    ['v2-post', 'domainName', 1],
  ] as const)('refuses %s whose requestContext.%s is %j', (name, field, value) => {
    const event = fixture(name);
    const context = { ...(event.requestContext as object), [field]: value };
    expect(refusalOf({ ...event, requestContext: context })?.message).toContain(
      `requestContext.${field}`,
    );
  });

  it('refuses a 2.0 http.path of the wrong type', () => {
    const event = fixture('v2-post') as { requestContext: { http: object } };
    const http = { ...event.requestContext.http, path: 3 };
    expect(
      refusalOf({ ...event, requestContext: { ...event.requestContext, http } })?.message,
    ).toContain('requestContext.http.path');
  });

  it('reads null where payload 1.0 sends it as absent', () => {
    const request = parseEvent({
      ...fixture('v1-post'),
      headers: null,
      multiValueHeaders: null,
      body: null,
      queryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
    });
    expect(request.body.length).toBe(0);
    expect(request.headers).toEqual({});
  });

  it.each([
    ['one map, two spellings', { 'Idempotency-Key': 'a', 'idempotency-key': 'b' }, undefined],
    [
      'one map, the same value twice',
      { 'IDEMPOTENCY-KEY': 'a', 'idempotency-key': 'a' },
      undefined,
    ],
    ['1.0 lists, two spellings', {}, { 'Idempotency-Key': ['a'], 'idempotency-key': ['b'] }],
    ['1.0 lists, two values', {}, { 'Idempotency-Key': ['a', 'b'] }],
    ['1.0 maps disagreeing', { 'Idempotency-Key': 'a' }, { 'Idempotency-Key': ['b'] }],
  ])('counts a header sent twice as repeated: %s', (_what, headers, multi) => {
    const base = multi === undefined ? fixture('v2-post') : fixture('v1-post');
    const request = parseEvent({
      ...base,
      headers,
      ...(multi === undefined ? {} : { multiValueHeaders: multi }),
    });
    expect(request.repeated.has('idempotency-key')).toBe(true);
  });

  it('reads one header sent in both 1.0 maps, however each spells it, as sent once', () => {
    const request = parseEvent({
      ...fixture('v1-post'),
      headers: { 'idempotency-key': 'a' },
      multiValueHeaders: { 'Idempotency-Key': ['a'] },
    });
    expect(request.repeated.size).toBe(0);
    expect(request.headers['idempotency-key']).toBe('a');
  });

  it('refuses a lone surrogate in a text body or a path, which UTF-8 would change', () => {
    expect(refusalOf({ ...fixture('v2-post'), body: 'a\ud800' })?.message).toMatch(/surrogate/);
    expect(refusalOf(withPath(fixture('url-post'), '/\udc00/queues/q/jobs'))?.message).toMatch(
      /surrogate/,
    );
    const v1 = fixture('v1-post');
    const context = { ...(v1.requestContext as object), path: '/\ud800/queues/orders/jobs' };
    expect(refusalOf({ ...v1, requestContext: context })?.message).toMatch(/surrogate/);
    expect(parseEvent({ ...fixture('v2-post'), body: '\ud83d\ude00' }).body.toString('hex')).toBe(
      'f09f9880',
    );
  });

  it('splits a 1.0 prefix into decoded segments, dropping empty ones', () => {
    const v1 = fixture('v1-post');
    const mount = (prefix: string) =>
      parseEvent({
        ...v1,
        requestContext: { ...(v1.requestContext as object), path: `${prefix}/queues/orders/jobs` },
      }).mount;
    expect(mount('/prod')).toEqual(['prod']);
    expect(mount('//elsewhere.example/a%20b')).toEqual(['elsewhere.example', 'a b']);
    expect(mount('https://elsewhere.example')).toEqual(['https:', 'elsewhere.example']);
    expect(mount('/st\r\nSet-Cookie: a=b')).toEqual(['st\r\nSet-Cookie: a=b']);
  });
});
