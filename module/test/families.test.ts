// The families answer alike (docs/wire.md, "The calls"): the module's EMQ.ADMIT and the emq
// library's emq_admit, the same calls on the same data, compared reply by reply, key by key and
// event by event (families-harness.ts). A hashtable's DUMP follows its hash seed, random per
// server, so a hashtable or skiplist is compared by content.
import { describe, expect, it } from 'vitest';
import { randomQueue } from '../../test/support/servers.js';
import { a, clients, field, HOUR, row, type Step, same, useFamilies } from './families-harness.js';
import { admitArgs, jobId, payloadDigest, slotKeys } from './helpers.js';

useFamilies();

describe('EMQ.ADMIT and FCALL emq_admit, the same calls on the same data', () => {
  it('new keys, replays, another digest, a taken row, a caller id', async () => {
    await same('basic', (q) => [
      { admit: [a(1, 'k1', 'p1'), a(2, 'k2', 'p2'), a(3, 'k3', '')] },
      { admit: [a(4, 'k1', 'p1')] }, // 0 and a touch
      { admit: [a(5, 'k2', 'other')] }, // -1
      { admit: [a(1, 'k9', 'p')] }, // 2
      { raw: ['HSET', row(q, jobId(6)), 'state', 'pending', 'attempts', '0', 'payload', 'mine'] },
      { admit: [a(6, 'c1', 'mine', { kind: 'c' }), a(6, 'c2', 'not mine', { kind: 'c' })] },
      { admit: [a(7, 'k4', 'p'), a(8, 'k1', 'p1')] }, // 1 and 0: no touch
    ]);
  });

  it('admissions of one call seeing each other', async () => {
    await same('incall', () => [
      {
        admit: [
          a(1, 'k', 'p'),
          a(2, 'k', 'p'),
          a(3, 'k', 'q'),
          a(1, 'k2', 'p'),
          a(1, 'k3', 'p', { kind: 'c' }),
          a(1, 'k4', 'x', { kind: 'c' }),
          a(9, 'k5', 'p', { kind: 'c' }),
          a(9, 'k6', 'p', { kind: 'c' }),
        ],
      },
    ]);
  });

  it("EMQKIND and WRONGTYPE elements: id, a caller id's row, pending, slot", async () => {
    await same('elements', (q) => [
      { admit: [a(1, 'k1', 'p', { id: 'XOB1' }), a(2, 'k2', 'p')] },
      { raw: ['SET', row(q, jobId(3)), 'x'] },
      { admit: [a(3, 'k3', 'p', { kind: 'c' }), a(4, 'k4', 'p'), a(5, 'k2', 'p')] },
      { raw: ['DEL', `emq:{${q}}:pending`] },
      { raw: ['SET', `emq:{${q}}:pending`, 'x'] },
      { admit: [a(6, 'k6', 'p'), a(7, 'k2', 'p'), a(2, 'k7', 'p'), a(8, 'k8', 'p', { id: 'JO' })] },
      { raw: ['SET', slotKeys(q)[3] as string, 'x'] },
      { admit: [a(9, 'k9', 'p', { id: 'XOB9' }), a(10, 'k10', 'p')] },
    ]);
  });

  it('dead slots: the one after the live ones, a dead target; a later header kept', async () => {
    await same('slots', (q, now) => {
      const window = HOUR / 2;
      const target = Math.floor((now + HOUR) / window) % 4;
      const steps: Step[] = slotKeys(q).map((slot) => ({
        raw: ['HSET', slot, field('dead'), `${jobId(90)}:${payloadDigest('p')}:5`, '~', '5'],
      }));
      steps.push({ admit: [a(1, 'k1', 'p'), a(2, 'dead', 'p')] });
      steps.push({ raw: ['HSET', slotKeys(q)[target] as string, '~', String(now + 9 * HOUR)] });
      steps.push({ admit: [a(3, 'k3', 'p')] });
      steps.push({ admit: [a(4, 'k1', 'p')] }); // only a touch
      return steps;
    });
  });

  it('encodings: a payload over 64 bytes, 130 new members, a record over 64 bytes', async () => {
    const big = 'x'.repeat(65);
    await same('encodings', () => [
      { admit: [a(1, 'big', big)] },
      { admit: Array.from({ length: 130 }, (_, i) => a(100 + i, `many${i}`, `p${i}`)) },
      { admit: [a(0, 'long', 'p', { id: `JOB${'L'.repeat(50)}` })] },
    ]);
  });

  it('a slot that outgrows its listpack (over 512 records)', async () => {
    await same('growth', () =>
      Array.from({ length: 6 }, (_, call) => ({
        admit: Array.from({ length: 100 }, (_, i) =>
          a(1000 + call * 100 + i, `g${call}-${i}`, 'p'),
        ),
      })),
    );
  });

  it("headers and expiries neither family wrote, read as Lua's tonumber reads them", async () => {
    const far = '99999999999999';
    const rec = (n: number, tail: string) => `${jobId(n)}:${payloadDigest('p')}:${tail}`;
    const replies = await same('numbers', (q) => [
      { raw: ['HSET', slotKeys(q)[0] as string, '~', 'not a number', field('k0'), rec(1, far)] },
      {
        raw: [
          'HSET',
          slotKeys(q)[1] as string,
          '~',
          ` ${far} `,
          field('k1'),
          rec(2, '0x7fffffffffff'),
        ],
      },
      {
        raw: [
          'HSET',
          slotKeys(q)[2] as string,
          '~',
          '1e20',
          field('k2'),
          rec(3, ' 1e15\t'),
          field('k3'),
          rec(4, `${far}x`),
        ],
      },
      {
        raw: [
          'HSET',
          slotKeys(q)[3] as string,
          '~',
          `${far}\u0000junk`,
          field('k4'),
          rec(5, '-5'),
          field('k5'),
          'short',
        ],
      },
      {
        admit: ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6'].map((key, i) => a(10 + i, key, 'p')),
      },
    ]);
    // Slot 0's header is no number: its records do not count. " <n> ", 1e20 and "<n>\0junk"
    // are numbers, so are a hex and a spaced exponent expiry; "<n>x", -5 and a short value die.
    expect(replies.at(-1)).toEqual([
      [1, jobId(10)],
      [0, jobId(2)],
      [0, jobId(3)],
      [1, jobId(13)],
      [1, jobId(14)],
      [1, jobId(15)],
      [1, jobId(16)],
    ]);
  });

  it('call-level refusals: shape, layout, fence; nothing written on either', async () => {
    await same('refusals', () => [
      { admit: [a(1, 'k', 'p')], options: { wire: 'bad wire' } },
      { admit: [a(1, 'k', 'p')], options: { ttlMs: '0' } },
      { admit: [a(1, 'k', 'p', { kind: 'x' })] },
      { admit: [a(1, 'k', 'p', { digest: 'short' })] },
      { raw: ['EMQ-NOT-A-COMMAND'] },
      { admit: [a(1, 'k', 'p')], options: { wire: '2' } },
      { raw: ['DEL', '{emq}:version'] },
      { admit: [a(1, 'k', 'p')] },
      { raw: ['SET', '{emq}:version', '1', 'PX', String(HOUR)] },
      { admit: [a(1, 'k', 'p')] },
      { raw: ['SET', '{emq}:version', '1'] },
      { admit: [a(2, 'k', 'p')] },
    ]);
    // And the layout: a row of another queue (both answer EMQLAYOUT, nothing written).
    const q = randomQueue('layout');
    const args = admitArgs(q, [a(3, 'k', 'p')]);
    args[6] = `emq:{other}:job:${jobId(3)}`;
    const { mod, lua } = clients();
    const [m, l] = await Promise.all([
      mod.call('EMQ.ADMIT', ...args).catch((e: Error) => e),
      lua.call('FCALL', 'emq_admit', ...args).catch((e: Error) => e),
    ]);
    expect(String(m)).toBe(String(l));
    expect(String(m)).toMatch(/^ReplyError: EMQLAYOUT /);
  });
});
