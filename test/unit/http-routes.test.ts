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

  it('answers 405 with Allow GET, PUT for another method on a job', () => {
    expect(matchRoute('DELETE', path('/queues/orders/jobs/JOB0KHTOWnGLuC'), '')).toEqual({
      kind: 'methodNotAllowed',
      allow: ['GET', 'PUT'],
    });
  });

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
