// Every example in openapi/openapi.yaml is something the function can really answer: it is
// valid against its schema, the batch answer example answers the batch request example item
// by item (a duplicate or a conflict only for an item with an id or idempotencyKey), and
// the limits the document states are the ones the function enforces.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MAX_BATCH_BODY_BYTES, MAX_BATCH_JOBS } from '../../functions/http/batch-body.js';
import { OPENAPI_PATH } from '../support/openapi.js';

type Json = Record<string, unknown>;

const document = parse(readFileSync(OPENAPI_PATH, 'utf8')) as Json;
const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
// A binary body (`format: binary`) is any bytes: its example is text.
ajv.addFormat('binary', true);
ajv.addSchema(document, 'openapi');

interface Example {
  readonly where: string;
  readonly schema: string;
  readonly value: unknown;
}

/** Every `example` and `examples.*.value` beside a `schema`, with that schema's pointer. */
function examplesOf(node: unknown, pointer: string, found: Example[] = []): Example[] {
  if (typeof node !== 'object' || node === null) return found;
  const object = node as Json;
  if ('schema' in object) {
    const schema = `openapi#${pointer}/schema`;
    if ('example' in object) found.push({ where: pointer, schema, value: object.example });
    for (const [name, example] of Object.entries((object.examples ?? {}) as Json)) {
      found.push({ where: `${pointer}/examples/${name}`, schema, value: (example as Json).value });
    }
  }
  for (const [key, child] of Object.entries(object)) {
    examplesOf(child, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, found);
  }
  return found;
}

function at(pointer: string): Json {
  let node: unknown = document;
  for (const segment of pointer.split('/').slice(1)) {
    node = (node as Json)[segment.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return node as Json;
}

const batch = '/paths/~1queues~1{queue}~1jobs~1batch/post';

describe('the OpenAPI examples', () => {
  it('are valid against their schemas', () => {
    const examples = examplesOf(document, '');
    expect(examples.length).toBeGreaterThan(5);
    for (const { where, schema, value } of examples) {
      const check = ajv.getSchema(schema);
      expect(check, where).toBeDefined();
      expect(check?.(value), `${where}: ${ajv.errorsText(check?.errors)}`).toBe(true);
    }
  });

  it('answer the batch request example item by item, as the function can', () => {
    const request = at(`${batch}/requestBody/content/application~1json/examples/mixed/value`);
    const answer = at(`${batch}/responses/200/content/application~1json/examples/mixed/value`);
    const jobs = request.jobs as Json[];
    const results = answer.results as Json[];
    expect(results).toHaveLength(jobs.length);
    results.forEach((result, index) => {
      const job = jobs[index] ?? {};
      const keyed = job.id !== undefined || job.idempotencyKey !== undefined;
      const error = result.error as Json | undefined;
      // A keyless item is keyed by this invocation: it can only be new.
      if (!keyed) expect(result.status, `item ${index}`).toBe('enqueued');
      if (job.id !== undefined && error === undefined) expect(result.id).toBe(job.id);
      if (error?.code === 'EMQ_CONFLICT') {
        expect(job.id, `item ${index}: a conflict needs an id`).toBeDefined();
        expect(error.status).toBe(409);
        expect(error.detail).toContain(String(job.id));
      }
      if (error?.code === 'EMQ_IDEMPOTENCY_MISMATCH') {
        expect(job.idempotencyKey, `item ${index}: a mismatch needs a key`).toBeDefined();
        expect(error.status).toBe(422);
      }
    });
    expect(
      new Set(results.map((result) => result.id ?? `error ${results.indexOf(result)}`)).size,
    ).toBe(results.length);
  });

  it('refuse a batch item with both an id and an idempotencyKey', () => {
    const item = ajv.getSchema('openapi#/components/schemas/BatchItem');
    expect(item?.({ payload: 'x', id: 'JOB0KHTOWnGLuC' })).toBe(true);
    expect(item?.({ payload: 'x', idempotencyKey: 'k' })).toBe(true);
    expect(item?.({ payload: 'x', id: 'JOB0KHTOWnGLuC', idempotencyKey: 'k' })).toBe(false);
  });

  it('state the batch limits the function enforces', () => {
    const jobs = at('/components/schemas/BatchRequest/properties/jobs');
    expect([jobs.minItems, jobs.maxItems]).toEqual([1, MAX_BATCH_JOBS]);
    const description = String(at(batch).description);
    expect(description).toContain(`${MAX_BATCH_BODY_BYTES.toLocaleString('en-US')} bytes`);
    expect(description).toContain(`1 to ${MAX_BATCH_JOBS.toLocaleString('en-US')} jobs`);
    expect(description).toMatch(/not valid UTF-8\s+JSON is refused 400/);
    const header = at('/components/parameters/IdempotencyKey');
    expect(header.description).toMatch(/repeats it is refused 400/);
  });
});
