// The client's types are generated from the OpenAPI document and checked in: they must be what
// the generator makes of the document today, so a change to either without the other fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_BATCH_BYTES, MAX_BATCH_JOBS } from '../../client/index.js';
import {
  MAX_BATCH_BODY_BYTES,
  MAX_BATCH_JOBS as SERVED_JOBS,
} from '../../functions/http/batch-body.js';
import { contractTypes, DOCUMENT, TYPES } from '../../scripts/openapi-types.js';

const document = readFileSync(DOCUMENT, 'utf8');

describe('client/contract.ts', () => {
  it('is what scripts/openapi-types.ts makes of openapi/openapi.yaml', () => {
    expect(
      readFileSync(TYPES, 'utf8'),
      'run `npx tsx scripts/openapi-types.ts` and commit client/contract.ts',
    ).toBe(contractTypes(document));
  });

  it('changes when a schema of the document does', () => {
    const changed = document.replace(
      '        status:\n          type: string\n          enum: [enqueued, duplicate]',
      '        status:\n          type: string\n          enum: [enqueued, duplicate, deferred]',
    );
    expect(changed).not.toBe(document);
    expect(contractTypes(changed)).toContain(
      "readonly status: 'enqueued' | 'duplicate' | 'deferred';",
    );
  });

  it('keeps open objects open: a member the face adds later is readable', () => {
    const text = contractTypes(document);
    const start = text.indexOf('export type ProblemMembers = {');
    const block = text.slice(start, text.indexOf('\n};', start));
    expect(start).toBeGreaterThan(0);
    expect(block).toContain('readonly [member: string]: unknown;');
  });

  it("splits batches at the function's own limits, which the document states", () => {
    expect(MAX_BATCH_BYTES).toBe(MAX_BATCH_BODY_BYTES);
    expect(MAX_BATCH_JOBS).toBe(SERVED_JOBS);
    expect(contractTypes(document)).toContain(
      `At most ${MAX_BATCH_BYTES.toLocaleString('en-US')} bytes (6 MiB) of UTF-8 JSON, with 1 to ${MAX_BATCH_JOBS.toLocaleString('en-US')} jobs.`,
    );
  });
});
