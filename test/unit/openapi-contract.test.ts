// The response validator the HTTP tests run on every answer (test/support/openapi.ts): it
// must accept what the document describes and catch what it does not.
import { describe, expect, it } from 'vitest';
import { contractProblems } from '../support/openapi.js';

const json = { 'content-type': 'application/json', 'x-request-id': 'r' };
const problem = { 'content-type': 'application/problem+json', 'x-request-id': 'r' };
const admitted = { queue: 'q', id: 'JOB0KHTOWnGLuC', status: 'enqueued' };
const problemBody = {
  title: 'Bad Request',
  status: 400,
  detail: 'd',
  code: 'EMQ_INVALID_ID',
  retryable: false,
  requestId: 'r',
};

describe('contractProblems', () => {
  it('accepts a 201 under a stage prefix', () => {
    const response = {
      statusCode: 201,
      headers: { ...json, location: '/prod/queues/q/jobs/JOB0KHTOWnGLuC' },
      body: JSON.stringify(admitted),
    };
    expect(contractProblems({ method: 'POST', path: '/prod/queues/q/jobs' }, response)).toEqual([]);
  });

  it('names a missing Location, a missing request id and a malformed id', () => {
    const response = {
      statusCode: 201,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...admitted, id: 'nope' }),
    };
    const found = contractProblems({ method: 'POST', path: '/queues/q/jobs' }, response);
    expect(found).toEqual(
      expect.arrayContaining(['header x-request-id is missing', 'header Location is missing']),
    );
    expect(found.some((text) => text.includes('/id must match pattern'))).toBe(true);
  });

  it('refuses an undeclared status, an extra problem member and a wrong content type', () => {
    const get = { method: 'GET', path: '/queues/q/jobs/JOB0KHTOWnGLuC' };
    expect(contractProblems(get, { statusCode: 201, headers: json, body: '{}' })).toEqual([
      'status 201 is not declared',
    ]);
    expect(
      contractProblems(get, {
        statusCode: 400,
        headers: problem,
        body: JSON.stringify({ ...problemBody, stack: 'x' }),
      }),
    ).not.toEqual([]);
    expect(
      contractProblems(get, { statusCode: 400, headers: json, body: JSON.stringify(problemBody) }),
    ).not.toEqual([]);
  });

  it('wants Retry-After on a 503, and no body on HEAD', () => {
    const head = { method: 'HEAD', path: '/queues/q/jobs/JOB0KHTOWnGLuC' };
    expect(
      contractProblems(head, {
        statusCode: 503,
        headers: { 'retry-after': '1', 'x-request-id': 'r' },
        body: '',
      }),
    ).toEqual([]);
    expect(
      contractProblems(head, { statusCode: 503, headers: { 'x-request-id': 'r' }, body: '' }),
    ).toEqual(['header Retry-After is missing']);
    expect(
      contractProblems(head, { statusCode: 200, headers: { 'x-request-id': 'r' }, body: '{}' }),
    ).toEqual(['the body must be empty']);
  });

  it('checks batch results item by item', () => {
    const post = { method: 'POST', path: '/queues/q/jobs/batch' };
    const good = {
      queue: 'q',
      results: [
        { id: 'JOB0KHTOWnGLuC', status: 'duplicate' },
        {
          error: {
            title: 'Conflict',
            status: 409,
            detail: 'd',
            code: 'EMQ_CONFLICT',
            retryable: false,
          },
        },
      ],
    };
    expect(
      contractProblems(post, { statusCode: 200, headers: json, body: JSON.stringify(good) }),
    ).toEqual([]);
    const bad = { queue: 'q', results: [{ id: 'JOB0KHTOWnGLuC', status: 'maybe' }] };
    expect(
      contractProblems(post, { statusCode: 200, headers: json, body: JSON.stringify(bad) }),
    ).not.toEqual([]);
  });

  it('holds unknown paths and methods to a problem, with Allow on a 405', () => {
    const body = JSON.stringify({ ...problemBody, status: 405, code: 'EMQ_METHOD_NOT_ALLOWED' });
    const batchGet = { method: 'DELETE', path: '/queues/q/jobs' };
    expect(
      contractProblems(batchGet, { statusCode: 405, headers: { ...problem, allow: 'POST' }, body }),
    ).toEqual([]);
    expect(contractProblems(batchGet, { statusCode: 405, headers: problem, body })).toEqual([
      'header Allow is missing',
    ]);
    const notFound = JSON.stringify({ ...problemBody, status: 404, code: 'EMQ_ROUTE_NOT_FOUND' });
    expect(
      contractProblems(
        { method: 'GET', path: '/health' },
        { statusCode: 404, headers: problem, body: notFound },
      ),
    ).toEqual([]);
  });
});
