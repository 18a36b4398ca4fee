import { describe, expect, it } from 'vitest';
import { matchRoute } from '../../functions/http/routes.js';

const path = (text: string): string[] => text.split('/').slice(1);

describe('matchRoute', () => {
  it('routes POST on the jobs collection to enqueue', () => {
    expect(matchRoute('POST', path('/queues/orders/jobs'), '')).toEqual({
      kind: 'enqueue',
      route: 'POST /queues/{queue}/jobs',
      queue: 'orders',
      base: '',
    });
  });

  it('routes PUT on a job to put, with its id', () => {
    expect(matchRoute('PUT', path('/queues/orders/jobs/JOB0KHTOWnGLuC'), '')).toEqual({
      kind: 'put',
      route: 'PUT /queues/{queue}/jobs/{id}',
      queue: 'orders',
      id: 'JOB0KHTOWnGLuC',
      base: '',
    });
  });

  it('routes GET on a job to get, with its id', () => {
    expect(matchRoute('GET', path('/queues/orders/jobs/JOB0KHTOWnGLuC'), '')).toMatchObject({
      kind: 'get',
      queue: 'orders',
      id: 'JOB0KHTOWnGLuC',
    });
  });

  it('keeps what precedes the route (a named stage) as the base, after the mount', () => {
    expect(matchRoute('POST', path('/prod/queues/orders/jobs'), '')).toMatchObject({
      kind: 'enqueue',
      base: '/prod',
    });
    expect(matchRoute('POST', path('/v1/queues/orders/jobs'), '/prod')).toMatchObject({
      base: '/prod/v1',
    });
  });

  it('lets the method pick the reading of a path that fits both shapes', () => {
    const segments = path('/queues/queues/jobs/jobs');
    expect(matchRoute('POST', segments, '')).toMatchObject({
      kind: 'enqueue',
      queue: 'jobs',
      base: '/queues',
    });
    expect(matchRoute('GET', segments, '')).toMatchObject({
      kind: 'get',
      queue: 'queues',
      id: 'jobs',
    });
  });

  it('answers 405 with Allow POST for another method on the collection', () => {
    expect(matchRoute('GET', path('/queues/orders/jobs'), '')).toEqual({
      kind: 'methodNotAllowed',
      allow: ['POST'],
    });
  });

  it('answers 405 with Allow GET, HEAD, PUT for another method on a job', () => {
    expect(matchRoute('DELETE', path('/queues/orders/jobs/JOB0KHTOWnGLuC'), '')).toEqual({
      kind: 'methodNotAllowed',
      allow: ['GET', 'HEAD', 'PUT'],
    });
  });

  it('routes HEAD on a job to the read, marked as HEAD', () => {
    expect(matchRoute('HEAD', path('/prod/queues/orders/jobs/JOB0KHTOWnGLuC'), '')).toEqual({
      kind: 'get',
      route: 'GET /queues/{queue}/jobs/{id}',
      queue: 'orders',
      id: 'JOB0KHTOWnGLuC',
      base: '/prod',
      head: true,
    });
  });

  it('routes POST on jobs/batch to the batch, under any prefix', () => {
    expect(matchRoute('POST', path('/v1/queues/orders/jobs/batch'), '/prod')).toEqual({
      kind: 'batch',
      route: 'POST /queues/{queue}/jobs/batch',
      queue: 'orders',
      base: '/prod/v1',
    });
  });

  it.each(['GET', 'PUT', 'DELETE'])(
    'answers 405 with Allow POST for %s on jobs/batch',
    (method) => {
      expect(matchRoute(method, path('/queues/orders/jobs/batch'), '')).toEqual({
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
    expect(matchRoute('POST', path(text), '')).toEqual({ kind: 'notFound' });
    expect(matchRoute('PUT', path(text), '')).toEqual({ kind: 'notFound' });
  });

  it('leaves queue and id unchecked, for the core to refuse with its own codes', () => {
    expect(matchRoute('PUT', path('/queues/a{b}/jobs/not-an-id'), '')).toMatchObject({
      kind: 'put',
      queue: 'a{b}',
      id: 'not-an-id',
    });
  });
});
