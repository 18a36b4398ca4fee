// Generated from openapi/openapi.yaml by scripts/openapi-operations.ts: do not edit.

/** Every operation of the HTTP face: the routes an API must send to the function. */
export const OPERATIONS = [
  { method: 'POST', path: '/queues/{queue}/jobs', operationId: 'enqueueJob' },
  { method: 'POST', path: '/queues/{queue}/jobs/batch', operationId: 'enqueueBatch' },
  { method: 'PUT', path: '/queues/{queue}/jobs/{id}', operationId: 'putJob' },
  { method: 'GET', path: '/queues/{queue}/jobs/{id}', operationId: 'getJob' },
  { method: 'HEAD', path: '/queues/{queue}/jobs/{id}', operationId: 'headJob' },
] as const;

export type Operation = (typeof OPERATIONS)[number];

export type OperationId = Operation['operationId'];
