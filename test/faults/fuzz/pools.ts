/**
 * What generated requests are made of. Valid values come from small pools, so runs revisit the
 * same queue, id, key and payload and reach duplicates, conflicts and replays, not just fresh
 * writes; invalid ones break each rule of docs/wire.md "Keys", "Job ids", "Idempotency records" one
 * way or another.
 */
import fc from 'fast-check';
import { jobIdAt } from '../../../src/keyspace/ids.js';
import { randomQueue } from '../../support/servers.js';

/** The payload cap the fuzzed functions run with: small, so bodies past it are cheap. */
export const FUZZ_CAP_BYTES = 300;

const QUEUE_CHARS = 'abcXYZ019._-';

/**
 * An over-long value: 1 MiB of characters every rule would take but for the length, so only
 * a length check refuses it. Its log lines must quote at most 256 bytes of it (invariants.ts).
 * No SQS record delivered from a queue carries one (a message holds at most 1 MiB in all), so
 * the SQS fuzz sends it only in records a direct invoke makes.
 */
export const ONE_MIB = 'q'.repeat(1024 * 1024);

/** Three valid queues per run, fresh so runs never meet each other's rows. */
export function queuePool(): string[] {
  return [randomQueue('fz'), randomQueue('fz'), randomQueue('fz')];
}

export function queueArb(pool: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...pool) },
    {
      weight: 1,
      arbitrary: fc.string({ unit: fc.constantFrom(...QUEUE_CHARS), minLength: 1, maxLength: 64 }),
    },
    { weight: 1, arbitrary: fc.constantFrom('', 'a'.repeat(65), 'a b', 'a{b}', 'a:b', 'q/1') },
    { weight: 1, arbitrary: fc.constantFrom('é', 'qü', '日本', 'q\u0000', 'q\n', '%7Bq%7D', '..') },
    { weight: 1, arbitrary: fc.string({ maxLength: 70 }) },
  );
}

/** Four valid ids shared by every run, so a PUT meets earlier ones. */
const ID_POOL = [1, 2, 3, 4].map((low) => jobIdAt(Date.UTC(2025, 10, 30), low));

export function jobIdArb(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...ID_POOL) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 0, max: 2 ** 22 - 1 }))
        .map(([ms, low]) => jobIdAt(Date.UTC(2024, 0, 1) + ms, low)),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'JOBzzzzzzzzzzz', // above 2^64
        'JOB0KHTOWnGLu', // 13 bytes
        'JOB0KHTOWnGLuCx', // 15 bytes
        'job0KHTOWnGLuC',
        'JOB0KHTOWnGL-C',
        'JOB0KHTOWnGL C',
        'XYZ0KHTOWnGLuC',
        'JOB',
        '',
        'JOB0KHTOWnGLu\u00e9',
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  );
}

export function idempotencyKeyArb(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('key-a', 'key-b', 'order-7781', 'K'.repeat(256)) },
    {
      weight: 2,
      arbitrary: fc.string({
        unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
        minLength: 1,
        maxLength: 40,
      }),
    },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', 'a b', 'K'.repeat(257), 'clé', 'k\tk') },
    { weight: 1, arbitrary: fc.string({ maxLength: 300 }) },
  );
}

/** Payload bytes around the cap: small pooled ones (replays), random ones up to and past it. */
export function payloadArb(): fc.Arbitrary<Uint8Array> {
  const pooled = ['', '{"sku":"A-113","qty":2}', 'hello'].map((text) => Buffer.from(text));
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...pooled) },
    { weight: 3, arbitrary: fc.uint8Array({ maxLength: 64 }) },
    {
      weight: 2,
      arbitrary: fc.uint8Array({ minLength: FUZZ_CAP_BYTES - 4, maxLength: FUZZ_CAP_BYTES + 4 }),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: FUZZ_CAP_BYTES * 2 }) },
  );
}

/** Base64 text that is not valid base64 in some way. */
export function brokenBase64Arb(): fc.Arbitrary<string> {
  return fc.constantFrom('@@@', 'AAA', 'A===', 'QUJD\u00e9', '====', 'QUJ D', 'Q', 'QUJDRA=X');
}
