import { describe, expect, it } from 'vitest';
import { matchRoute, ROUTE_LIST, routeName, routeTable } from '../../functions/http/routes.js';
import { OPERATIONS, type OperationId } from '../../openapi/operations.js';

const path = (text: string): string[] => text.split('/').slice(1);

/** A match, with its operation named by its operationId. */
function matched(method: string, segments: string[], mount: readonly string[] = []) {
  const match = matchRoute(method, segments, mount);
  if (match.kind !== 'operation') return match;
  const { operation, ...rest } = match;
  return { ...rest, operation: operation.operationId as OperationId };
}

describe('matchRoute', () => {
  it('routes POST on the jobs collection to enqueue', () => {
    expect(matched('POST', path('/queues/orders/jobs'))).toEqual({
      kind: 'operation',
      operation: 'enqueueJob',
      params: { queue: 'orders' },
      base: '',
    });
  });

  it('routes PUT on a job to put, with its id', () => {
    expect(matched('PUT', path('/queues/orders/jobs/JOB0KHTOWnGLuC'))).toEqual({
      kind: 'operation',
      operation: 'putJob',
      params: { queue: 'orders', id: 'JOB0KHTOWnGLuC' },
      base: '',
    });
  });

  it('routes GET on a job to get, with its id', () => {
    expect(matched('GET', path('/queues/orders/jobs/JOB0KHTOWnGLuC'))).toMatchObject({
      operation: 'getJob',
      params: { queue: 'orders', id: 'JOB0KHTOWnGLuC' },
    });
  });

  it('keeps what precedes the route (a named stage) as the base, after the mount', () => {
    expect(matched('POST', path('/prod/queues/orders/jobs'))).toMatchObject({
      operation: 'enqueueJob',
      base: '/prod',
    });
    expect(matched('POST', path('/v1/queues/orders/jobs'), ['prod'])).toMatchObject({
      base: '/prod/v1',
    });
  });

  it('percent-encodes every segment of the base and drops empty ones: it never names another host', () => {
    const base = (segments: string[], mount: string[] = []) =>
      (matched('POST', [...segments, 'queues', 'orders', 'jobs'], mount) as { base: string }).base;
    expect(base([], ['st\r\nSet-Cookie: a=b'])).toBe('/st%0D%0ASet-Cookie%3A%20a%3Db');
    expect(base(['', 'elsewhere.example'])).toBe('/elsewhere.example');
    expect(base(['https:', '', 'elsewhere.example'])).toBe('/https%3A/elsewhere.example');
    expect(base(['\\elsewhere.example'])).toBe('/%5Celsewhere.example');
    expect(base(['', ''], [''])).toBe('');
  });

  it('lets the method pick the reading of a path that fits both shapes', () => {
    const segments = path('/queues/queues/jobs/jobs');
    expect(matched('POST', segments)).toMatchObject({
      operation: 'enqueueJob',
      params: { queue: 'jobs' },
      base: '/queues',
    });
    expect(matched('GET', segments)).toMatchObject({
      operation: 'getJob',
      params: { queue: 'queues', id: 'jobs' },
    });
    // A method neither reading takes: the Allow of the longer one.
    expect(matched('DELETE', segments)).toEqual({
      kind: 'methodNotAllowed',
      allow: ['GET', 'HEAD', 'PUT'],
    });
  });

  it('answers 405 with Allow POST for another method on the collection', () => {
    expect(matchRoute('GET', path('/queues/orders/jobs'))).toEqual({
      kind: 'methodNotAllowed',
      allow: ['POST'],
    });
  });

  it('answers 405 with Allow GET, HEAD, PUT for another method on a job', () => {
    expect(matchRoute('DELETE', path('/queues/orders/jobs/JOB0KHTOWnGLuC'))).toEqual({
      kind: 'methodNotAllowed',
      allow: ['GET', 'HEAD', 'PUT'],
    });
  });

  it('routes HEAD on a job to its own operation', () => {
    const match = matchRoute('HEAD', path('/prod/queues/orders/jobs/JOB0KHTOWnGLuC'));
    expect(match).toEqual({
      kind: 'operation',
      operation: { method: 'HEAD', path: '/queues/{queue}/jobs/{id}', operationId: 'headJob' },
      params: { queue: 'orders', id: 'JOB0KHTOWnGLuC' },
      base: '/prod',
    });
    if (match.kind === 'operation') {
      expect(routeName(match.operation)).toBe('HEAD /queues/{queue}/jobs/{id}');
    }
  });

  it('routes POST on jobs/batch to the batch, under any prefix', () => {
    expect(matched('POST', path('/v1/queues/orders/jobs/batch'), ['prod'])).toEqual({
      kind: 'operation',
      operation: 'enqueueBatch',
      params: { queue: 'orders' },
      base: '/prod/v1',
    });
  });

  it.each(['GET', 'PUT', 'DELETE'])(
    'answers 405 with Allow POST for %s on jobs/batch',
    (method) => {
      expect(matchRoute(method, path('/queues/orders/jobs/batch'))).toEqual({
        kind: 'methodNotAllowed',
        allow: ['POST'],
      });
    },
  );

  it.each([
    '/',
    '/health',
    '/queues',
    '/queues/orders',
    '/queues//jobs',
    '/queues/orders/jobs/',
    '/queues/orders/job/JOB0KHTOWnGLuC',
    '/queues/orders/jobs/JOB0KHTOWnGLuC/state',
  ])('finds no route for %s', (text) => {
    expect(matchRoute('POST', path(text))).toEqual({ kind: 'notFound' });
    expect(matchRoute('PUT', path(text))).toEqual({ kind: 'notFound' });
  });

  it('leaves queue and id unchecked, for the core to refuse with its own codes', () => {
    expect(matched('PUT', path('/queues/a{b}/jobs/not-an-id'))).toMatchObject({
      operation: 'putJob',
      params: { queue: 'a{b}', id: 'not-an-id' },
    });
  });

  it('encodes the segments kept in front of the route once more, for Location', () => {
    expect(matched('POST', path('/a b/queues/orders/jobs'))).toMatchObject({
      base: '/a%20b',
    });
  });
});

describe('ROUTE_LIST', () => {
  it("lists the document's routes, each path once with its methods, for the 404", () => {
    expect(ROUTE_LIST).toBe(
      'No such route. Routes: POST /queues/{queue}/jobs, POST /queues/{queue}/jobs/batch, PUT, GET and HEAD /queues/{queue}/jobs/{id}.',
    );
  });
});

describe('routeTable', () => {
  // What a new row of the document does: its route matches, its method joins the path's
  // Allow and its path the 404's list, with no other change.
  const table = routeTable([
    ...OPERATIONS,
    { method: 'DELETE', path: '/queues/{queue}/jobs/{id}', operationId: 'deleteJob' },
    { method: 'GET', path: '/queues/{queue}/pending', operationId: 'listPending' },
  ]);

  it('matches a new row under any prefix, with its variables', () => {
    expect(table.match('GET', path('/prod/queues/orders/pending'))).toMatchObject({
      kind: 'operation',
      operation: { operationId: 'listPending' },
      params: { queue: 'orders' },
      base: '/prod',
    });
    expect(table.match('DELETE', path('/queues/orders/jobs/JOB0KHTOWnGLuC'))).toMatchObject({
      operation: { operationId: 'deleteJob' },
      params: { queue: 'orders', id: 'JOB0KHTOWnGLuC' },
    });
  });

  it("adds a new method to its path's Allow and a new path to the 404's list", () => {
    expect(table.match('PATCH', path('/queues/orders/jobs/JOB0KHTOWnGLuC'))).toEqual({
      kind: 'methodNotAllowed',
      allow: ['DELETE', 'GET', 'HEAD', 'PUT'],
    });
    expect(table.match('POST', path('/queues/orders/pending'))).toEqual({
      kind: 'methodNotAllowed',
      allow: ['GET'],
    });
    expect(table.list).toBe(
      'No such route. Routes: POST /queues/{queue}/jobs, POST /queues/{queue}/jobs/batch, PUT, GET, HEAD and DELETE /queues/{queue}/jobs/{id}, GET /queues/{queue}/pending.',
    );
  });
});
