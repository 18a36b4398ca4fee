import { describe, expect, it } from 'vitest';
import {
  admittedResponse,
  headerValue,
  jobLocation,
  jobResponse,
  problemOf,
  problemResponse,
} from '../../functions/http/responses.js';
import {
  ConfigError,
  ConflictError,
  FenceError,
  InvalidInputError,
  PausedError,
  RefusedError,
  UnavailableError,
} from '../../src/index.js';

const REQUEST_ID = '0f4c2e8a-5b1d-4c3e-9a7f-000000000001';

function parsed(body: string): Record<string, unknown> {
  return JSON.parse(body) as Record<string, unknown>;
}

describe('problemOf', () => {
  it.each([
    [new InvalidInputError('EMQ_INVALID_QUEUE', 'bad queue'), 400, 'EMQ_INVALID_QUEUE'],
    [new InvalidInputError('EMQ_INVALID_ID', 'bad id'), 400, 'EMQ_INVALID_ID'],
    [new InvalidInputError('EMQ_INVALID_REQUEST', 'bad key'), 400, 'EMQ_INVALID_REQUEST'],
    [new InvalidInputError('EMQ_PAYLOAD_TOO_LARGE', 'too big'), 413, 'EMQ_PAYLOAD_TOO_LARGE'],
    [new ConflictError('EMQ_CONFLICT', 'other payload'), 409, 'EMQ_CONFLICT'],
    [new ConflictError('EMQ_IDEMPOTENCY_MISMATCH', 'other body'), 422, 'EMQ_IDEMPOTENCY_MISMATCH'],
    [new RefusedError('EMQ_WRONGTYPE', 'wrong type'), 500, 'EMQ_WRONGTYPE'],
  ])('maps a permanent %o to its status and code, without Retry-After', (error, status, code) => {
    const problem = problemOf(error);
    expect(problem).toMatchObject({ status, code, retryable: false, detail: error.message });
    expect(problem.retryAfterSeconds).toBeUndefined();
    expect(problemResponse(problem, REQUEST_ID).headers['retry-after']).toBeUndefined();
  });

  it.each([
    [new FenceError('fence'), 'EMQWIRE', '5'],
    [new PausedError('paused'), 'EMQ_PAUSED', '1'],
    [new UnavailableError('down'), 'EMQ_UNAVAILABLE', '1'],
  ])('maps a retryable %o to 503 with Retry-After', (error, code, retryAfter) => {
    const response = problemResponse(problemOf(error), REQUEST_ID);
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe(retryAfter);
    expect(parsed(response.body)).toMatchObject({ status: 503, code, retryable: true });
  });

  it.each([
    [new ConfigError('EMQ_URL is invalid: expected redis:// or rediss://'), 500, 'EMQ_URL'],
    [
      new ConfigError('EMQ_EXECUTOR=native but node abc has no module', { code: 'EMQ_NO_MODULE' }),
      500,
      'EMQ_EXECUTOR',
    ],
    [new FenceError('node 07c3 holds wire "2", this host expects "1"'), 503, 'wire "2"'],
  ])('keeps the operator-only message of %o out of the public detail', (error, status, secret) => {
    const problem = problemOf(error);
    expect(problem.status).toBe(status);
    expect(problem.detail).not.toBe(error.message);
    const response = problemResponse(problem, REQUEST_ID);
    expect(response.body).not.toContain(secret);
    expect(response.body).not.toContain('07c3');
    expect(problemOf(error).retryAfterSeconds).toBe(status === 503 ? 5 : undefined);
  });

  it('answers an error that is not an EmqError with 500 EMQ_UNKNOWN and never its message', () => {
    const leak = new Error('connect ECONNREFUSED redis://admin:hunter2@10.0.0.7:6379');
    const response = problemResponse(problemOf(leak), REQUEST_ID);
    expect(response.statusCode).toBe(500);
    expect(parsed(response.body)).toMatchObject({ code: 'EMQ_UNKNOWN', retryable: false });
    expect(response.body).not.toContain('10.0.0.7');
    expect(response.body).not.toContain('hunter2');
    expect(response.body).not.toContain('ECONNREFUSED');
  });
});

describe('problemResponse', () => {
  it('is application/problem+json with status, title, detail, code, retryable and request id', () => {
    const response = problemResponse(
      problemOf(new ConflictError('EMQ_CONFLICT', 'Job exists with another payload.')),
      REQUEST_ID,
    );
    expect(response.headers).toEqual({
      'content-type': 'application/problem+json',
      'x-request-id': REQUEST_ID,
    });
    expect(parsed(response.body)).toEqual({
      title: 'Conflict',
      status: 409,
      detail: 'Job exists with another payload.',
      code: 'EMQ_CONFLICT',
      retryable: false,
      requestId: REQUEST_ID,
    });
    expect(response.isBase64Encoded).toBe(false);
  });

  it('sends Allow on a 405', () => {
    const response = problemResponse(
      {
        status: 405,
        code: 'EMQ_METHOD_NOT_ALLOWED',
        detail: 'x',
        retryable: false,
        allow: ['GET', 'PUT'],
      },
      REQUEST_ID,
    );
    expect(response.headers.allow).toBe('GET, PUT');
  });
});

describe('admittedResponse', () => {
  it('answers 201 with Location and the job for a new job', () => {
    const location = jobLocation('/prod', 'orders', 'JOB0KHTOWnGLuC');
    const response = admittedResponse(
      { queue: 'orders', id: 'JOB0KHTOWnGLuC', status: 'enqueued' },
      location,
      REQUEST_ID,
    );
    expect(response.statusCode).toBe(201);
    expect(response.headers).toEqual({
      'content-type': 'application/json',
      location: '/prod/queues/orders/jobs/JOB0KHTOWnGLuC',
      'x-request-id': REQUEST_ID,
    });
    expect(response.body).toBe('{"queue":"orders","id":"JOB0KHTOWnGLuC","status":"enqueued"}');
  });

  it('answers 200 with the same Location for a duplicate', () => {
    const response = admittedResponse(
      { queue: 'orders', id: 'JOB0KHTOWnGLuC', status: 'duplicate' },
      '/queues/orders/jobs/JOB0KHTOWnGLuC',
      REQUEST_ID,
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers.location).toBe('/queues/orders/jobs/JOB0KHTOWnGLuC');
    expect(parsed(response.body).status).toBe('duplicate');
  });
});

describe('jobResponse', () => {
  it('sends a UTF-8 payload as text', () => {
    const row = { state: 'pending', attempts: 0, payload: Buffer.from('héllo', 'utf8') };
    expect(parsed(jobResponse('orders', 'JOB0KHTOWnGLuC', row, REQUEST_ID).body)).toEqual({
      queue: 'orders',
      id: 'JOB0KHTOWnGLuC',
      state: 'pending',
      attempts: 0,
      payload: 'héllo',
      encoding: 'utf8',
    });
  });

  it('sends a payload that is not UTF-8 as base64', () => {
    const bytes = Buffer.from([0x00, 0xff, 0xc3, 0x28]);
    const row = { state: 'pending', attempts: 2, payload: bytes };
    const body = parsed(jobResponse('orders', 'JOB0KHTOWnGLuC', row, REQUEST_ID).body);
    expect(body).toMatchObject({ attempts: 2, encoding: 'base64' });
    expect(Buffer.from(String(body.payload), 'base64').equals(bytes)).toBe(true);
  });
});

describe('headerValue', () => {
  it('sends visible ASCII as it is and percent-encodes the rest, CR and LF above all', () => {
    expect(headerValue('/prod/queues/q/jobs/JOB0KHTOWnGLuC')).toBe(
      '/prod/queues/q/jobs/JOB0KHTOWnGLuC',
    );
    expect(headerValue('/a\r\nSet-Cookie: b')).toBe('/a%0D%0ASet-Cookie: b');
    expect(headerValue('é\t\u0000\u007f')).toBe('%C3%A9%09%00%7F');
  });

  it('is applied to every header a response carries', () => {
    const response = problemResponse(
      {
        status: 405,
        code: 'EMQ_METHOD_NOT_ALLOWED',
        detail: 'x',
        retryable: false,
        allow: ['GET\r\nX: y'],
      },
      'id\n',
    );
    for (const value of Object.values(response.headers)) expect(value).not.toMatch(/[\r\n]/);
    expect(response.headers.allow).toBe('GET%0D%0AX: y');
  });
});
