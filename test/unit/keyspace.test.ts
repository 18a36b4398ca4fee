import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/index.js';
import { jobIdAt } from '../../src/keyspace/ids.js';
import {
  assertCallerIdTime,
  assertIdempotencyKey,
  assertJobId,
  assertQueue,
  checkedJobId,
  checkedQueue,
  jobKey,
  pendingKey,
  queueSlot,
  recordField,
  recordSlotKeys,
  slotOf,
  trustedJobKey,
  trustedQueueKeys,
  wireKey,
} from '../../src/keyspace/keyspace.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof InvalidInputError ? error.code : 'not an InvalidInputError';
  }
  return undefined;
}

describe('queue names', () => {
  it.each([
    ['braces', 'a{b}'],
    ['an opening brace', '{orders'],
    ['a colon', 'orders:eu'],
    ['a space', 'my queue'],
    ['the empty string', ''],
    ['65 bytes', 'q'.repeat(65)],
    ['non-ASCII', 'commandes-é'],
    ['a slash', 'a/b'],
    ['a newline', 'orders\n'],
    ['a single dot (a path segment to URL parsers)', '.'],
    ['two dots (a path segment to URL parsers)', '..'],
  ])('refuses %s', (_, queue) => {
    expect(codeOf(() => assertQueue(queue))).toBe('EMQ_INVALID_QUEUE');
  });

  it('refuses a value that is not a string', () => {
    expect(codeOf(() => assertQueue(42))).toBe('EMQ_INVALID_QUEUE');
  });

  it.each([['orders'], ['a'], ['q'.repeat(64)], ['A-z_0.9'], ['...']])('accepts %s', (queue) => {
    expect(codeOf(() => assertQueue(queue))).toBeUndefined();
  });

  it('says what is allowed in the refusal', () => {
    expect(() => assertQueue('a:b')).toThrow(/1 to 64 characters of A-Z a-z 0-9 \. _ -/);
  });
});

describe('job ids', () => {
  it.each([
    ['a two-letter prefix', 'JO0KHTOWnGLuC'],
    ['a lower-case prefix', 'job0KHTOWnGLuC'],
    ['13 bytes', 'JOB0KHTOWnGLu'],
    ['15 bytes', 'JOB0KHTOWnGLuCC'],
    ['a non-base62 digit', 'JOB0KHTOWnGL-C'],
    ['the value 2^64', 'JOBLygHa16AHYG'],
    ['a value far above 2^64', 'JOBzzzzzzzzzzz'],
    ['the empty string', ''],
    ['just the prefix', 'JOB'],
  ])('refuses %s', (_, id) => {
    expect(codeOf(() => assertJobId(id))).toBe('EMQ_INVALID_ID');
  });

  it.each([
    ['the seed sample', 'JOB0KHTOWnGLuC'],
    ['zero', 'JOB00000000000'],
    ['2^64 - 1', 'JOBLygHa16AHYF'],
  ])('accepts %s', (_, id) => {
    expect(codeOf(() => assertJobId(id))).toBeUndefined();
  });
});

describe('caller id times', () => {
  const now = Date.UTC(2026, 11, 1, 12, 0, 0);
  const day = 86_400_000;

  it('accepts an id minted now, a day ago and a minute ahead', () => {
    for (const at of [now, now - day + 1_000, now + 59_000]) {
      expect(codeOf(() => assertCallerIdTime(jobIdAt(at, 7), day, now))).toBeUndefined();
    }
  });

  it('refuses an id older than the limit, saying pending order is id order', () => {
    const old = jobIdAt(now - day - 1_000, 7);
    expect(codeOf(() => assertCallerIdTime(old, day, now))).toBe('EMQ_INVALID_ID');
    expect(() => assertCallerIdTime(old, day, now)).toThrow(/pending order is id order/);
    expect(codeOf(() => assertCallerIdTime('JOB00000000000', day, now))).toBe('EMQ_INVALID_ID');
  });

  it('refuses an id more than a minute in the future', () => {
    const ahead = jobIdAt(now + 61_000, 7);
    expect(codeOf(() => assertCallerIdTime(ahead, day, now))).toBe('EMQ_INVALID_ID');
    expect(codeOf(() => assertCallerIdTime(ahead, 0, now))).toBe('EMQ_INVALID_ID');
  });

  it('turns the age check off with 0', () => {
    expect(codeOf(() => assertCallerIdTime('JOB00000000000', 0, now))).toBeUndefined();
  });

  it('says what to do with a non-JOB id where it is shown: the advice given, and the 2^64 rule', () => {
    expect(() => assertJobId('order-1001')).toThrow(/emq id/);
    expect(() => assertJobId('order-1001')).not.toThrow(/Idempotency-Key/);
    expect(() => assertJobId('order-1001', 'Put it in the Idempotency-Key header.')).toThrow(
      /Idempotency-Key header\.$/,
    );
    expect(() => assertJobId('JOBaaaaaaaaaaa')).toThrow(/below 2\^64/);
  });
});

describe('keys', () => {
  const id = 'JOB0KHTOWnGLuC';

  it('builds the row, pending and fence keys of docs/wire.md "Keys"', () => {
    expect(jobKey('orders', id)).toBe('emq:{orders}:job:JOB0KHTOWnGLuC');
    expect(pendingKey('orders')).toBe('emq:{orders}:pending');
    expect(wireKey).toBe('{emq}:version');
  });

  it('names a record by the first 22 characters of the base64url sha256 of namespace:key', () => {
    expect(recordField('call', 'abc')).toBe('cOfVtpSr_o7e35VdlTWH8u');
    expect(recordField('http', 'abc')).not.toBe(recordField('sqs', 'abc'));
  });

  it('refuses to build a key for an invalid queue or id', () => {
    expect(codeOf(() => jobKey('a:b', id))).toBe('EMQ_INVALID_QUEUE');
    expect(codeOf(() => jobKey('orders', 'JOBX'))).toBe('EMQ_INVALID_ID');
    expect(codeOf(() => assertIdempotencyKey(''))).toBe('EMQ_INVALID_REQUEST');
    expect(codeOf(() => assertIdempotencyKey('k'.repeat(257)))).toBe('EMQ_INVALID_REQUEST');
  });

  it('checks a queue and id once: the checks brand them, and the trusted builders give the same keys', () => {
    const queue = checkedQueue('orders');
    const checkedId = checkedJobId(id);
    expect(trustedJobKey(queue, checkedId)).toBe(jobKey('orders', id));
    expect(trustedQueueKeys(queue).pendingKey).toBe(pendingKey('orders'));
    expect(trustedQueueKeys(queue).slot).toBe(queueSlot('orders'));
    expect(codeOf(() => checkedQueue('a:b'))).toBe('EMQ_INVALID_QUEUE');
    expect(codeOf(() => checkedQueue('..'))).toBe('EMQ_INVALID_QUEUE');
    expect(codeOf(() => checkedJobId('JOBX'))).toBe('EMQ_INVALID_ID');
  });

  it('puts every key of a queue on one slot', () => {
    for (const queue of ['orders', 'a', 'q'.repeat(64), 'billing.eu-1', 'x_y']) {
      const slot = queueSlot(queue);
      expect(slotOf(jobKey(queue, id))).toBe(slot);
      expect(slotOf(pendingKey(queue))).toBe(slot);
      for (const key of recordSlotKeys(queue)) expect(slotOf(key)).toBe(slot);
    }
  });

  it('computes slots that match the published CRC16/XMODEM vectors', () => {
    // CRC16/XMODEM("123456789") = 0x31C3 = 12739; the cluster spec's examples follow.
    expect(slotOf('123456789')).toBe(12739);
    expect(slotOf('foo')).toBe(12182);
    expect(slotOf('{user1000}.following')).toBe(slotOf('{user1000}.followers'));
    expect(slotOf('{user1000}.following')).toBe(slotOf('user1000'));
    // An empty tag hashes the whole key; the first `{` opens the tag even when another follows.
    expect(slotOf('foo{}{bar}')).not.toBe(slotOf('bar'));
    expect(slotOf('foo{{bar}}zap')).toBe(slotOf('{bar'));
    expect(slotOf(wireKey)).toBe(slotOf('emq'));
  });
});
