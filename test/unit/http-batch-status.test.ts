// Which batch answers as one cause (docs/reliability.md): every item failed for one server-side
// cause a retry cannot mend (500), so the API's 5xx alarms see a deployment that admits
// nothing; a batch with any success, or items failing for their own reasons, stays 200.
import { describe, expect, it } from 'vitest';
import { oneServerCause } from '../../functions/http/batch.js';
import type { AdmissionResult } from '../../src/admission/admission-calls.js';
import {
  ConfigError,
  ConflictError,
  InvalidInputError,
  RefusedError,
  UnavailableError,
} from '../../src/index.js';

const config = () => new ConfigError('NOPERM for emq-app');
const admitted = { queue: 'q', id: 'JOB0KHTOWnGLuC', status: 'enqueued' } as AdmissionResult;

describe('oneServerCause', () => {
  it('is the cause when every item failed for one non-retryable server-side code', () => {
    const first = config();
    expect(oneServerCause([first, config(), config()])).toBe(first);
    const unknown = new RefusedError('EMQ_UNKNOWN', 'odd');
    expect(oneServerCause([unknown])).toBe(unknown);
  });

  it.each([
    ['one item admitted', [config(), admitted]],
    ['two server-side codes', [config(), new RefusedError('EMQ_WRONGTYPE', 'w')]],
    ['a conflict among them', [config(), new ConflictError('EMQ_CONFLICT', 'c')]],
    ['every item a conflict', [new ConflictError('EMQ_CONFLICT', 'c')]],
    ['every item invalid', [new InvalidInputError('EMQ_INVALID_ID', 'i')]],
    ['every item retryable', [new UnavailableError('u'), new UnavailableError('u')]],
  ] as const)('is none with %s: the batch keeps its per-item answer', (_what, results) => {
    expect(oneServerCause(results as readonly AdmissionResult[])).toBeUndefined();
  });
});
