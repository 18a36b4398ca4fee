// The resend span (src/settings/resend-span.ts) and the rules that read it: loadConfig, and the
// construct through it, refuse a record life (EMQ_DEDUPE_TTL_MS) shorter than the span; and what earlier attempts
// of an admission tell about its answer (src/admission/attempts.ts).

import { describe, expect, it } from 'vitest';
import { settingsProblems } from '../../infra/deployment/environment.js';
import type { Item } from '../../src/admission/admission-calls.js';
import { Attempts } from '../../src/admission/attempts.js';
import type { IdSource } from '../../src/families/family.js';
import {
  type AdmissionResult,
  ConfigError,
  loadConfig,
  UnavailableError,
  UnconfirmedError,
} from '../../src/index.js';
import { resendSpanMs, resendUntil } from '../../src/settings/resend-span.js';
import {
  SETTING_NAMES,
  SETTINGS,
  type SettingName,
  type SettingValues,
} from '../../src/settings/settings-table.js';

describe('the resend span', () => {
  it('is two passes of the connect timeout and the command timeout', () => {
    expect(resendSpanMs({ connectTimeoutMs: 3_000, commandTimeoutMs: 2_000 })).toBe(10_000);
    expect(resendSpanMs({ connectTimeoutMs: 800, commandTimeoutMs: 500 })).toBe(2_600);
  });

  it('ends the sending one command timeout before it ends, so the last send ends within it', () => {
    expect(resendUntil({ connectTimeoutMs: 3_000, commandTimeoutMs: 2_000 }, 1_000)).toBe(9_000);
  });
});

describe('EMQ_DEDUPE_TTL_MS against the resend span', () => {
  it('refuses a key that could expire before the last resend, naming both figures', () => {
    expect(() => loadConfig({ EMQ_DEDUPE_TTL_MS: '9999' })).toThrow(ConfigError);
    expect(() => loadConfig({ EMQ_DEDUPE_TTL_MS: '9999' })).toThrow(
      'EMQ_DEDUPE_TTL_MS is 9999 ms, shorter than 10000 ms, the longest span over which a function may send one admission again: 2 × (EMQ_CONNECT_TIMEOUT_MS 3000 + EMQ_COMMAND_TIMEOUT_MS 2000). A key that expires sooner would let that send write a second job. Raise EMQ_DEDUPE_TTL_MS to at least 10000, or lower the timeouts.',
    );
  });

  it('accepts the span itself, and holds the TTL to the timeouts given', () => {
    expect(loadConfig({ EMQ_DEDUPE_TTL_MS: '10000' }).dedupeTtlMs).toBe(10_000);
    const short = { EMQ_COMMAND_TIMEOUT_MS: '500', EMQ_CONNECT_TIMEOUT_MS: '800' };
    expect(loadConfig({ ...short, EMQ_DEDUPE_TTL_MS: '2600' }).dedupeTtlMs).toBe(2_600);
    // Longer timeouts than the default TTL allows.
    expect(() => loadConfig({ EMQ_COMMAND_TIMEOUT_MS: '2000000' })).toThrow(
      /^EMQ_DEDUPE_TTL_MS is 3600000 ms, shorter than 4006000 ms/,
    );
  });

  const defaults = Object.fromEntries(
    SETTING_NAMES.map((name: SettingName) => [name, SETTINGS[name].default]),
  ) as Required<SettingValues>;

  it('refuses it at synthesis, naming the setting', () => {
    expect(settingsProblems({ ...defaults, dedupeTtlMs: 1_000 })).toEqual([
      expect.stringMatching(
        /^dedupeTtlMs \(EMQ_DEDUPE_TTL_MS\) is 1000 ms, shorter than 10000 ms, .*connectTimeoutMs \(EMQ_CONNECT_TIMEOUT_MS\) 3000/,
      ),
    ]);
  });

  it('judges it at synthesis against the timeouts given, not their defaults', () => {
    const values = { ...defaults, dedupeTtlMs: 4_000, commandTimeoutMs: 1_000 };
    expect(settingsProblems({ ...values, connectTimeoutMs: 1_000 })).toEqual([]);
  });
});

describe('what earlier attempts of an admission tell', () => {
  const minted = { index: 0, idSource: 'm' } as const;
  const callerId = { index: 0, idSource: 'c' } as const;
  const lost = (jobId: string) => new UnavailableError('lost', { jobId, written: 'maybe' });
  const duplicate = (id: string): AdmissionResult => ({ queue: 'q', id, status: 'duplicate' });
  // Attempts reads an item's index and id source only.
  const attempts = (
    item: { index: number; idSource: IdSource },
    earlier: AdmissionResult[] = [],
    ownKeys: number[] = [],
  ) => new Attempts(new Set(ownKeys), [item as unknown as Item], earlier);

  it('a duplicate of the id a lost attempt proposed is this invocation’s own write', () => {
    const seen = new Attempts(new Set(), [], []);
    seen.note(0, lost('JOB1'), true);
    expect(seen.settled(0, duplicate('JOB1'))).toEqual({
      queue: 'q',
      id: 'JOB1',
      status: 'enqueued',
    });
    // Another id: an earlier request's job, a true duplicate.
    expect(seen.settled(0, duplicate('JOB2'))).toEqual(duplicate('JOB2'));
  });

  it('a caller id proves nothing: its replay names the same id', () => {
    const seen = new Attempts(new Set(), [], []);
    seen.note(0, lost('JOB1'), false);
    expect(seen.settled(0, duplicate('JOB1'))).toEqual(duplicate('JOB1'));
  });

  it('an id a reply named (written yes) is not a proposal', () => {
    const seen = new Attempts(new Set(), [], []);
    seen.note(0, new UnconfirmedError('not confirmed', { jobId: 'JOB1', written: 'yes' }), true);
    expect(seen.settled(0, duplicate('JOB1'))).toEqual(duplicate('JOB1'));
  });

  it('an earlier call’s lost attempt counts, and its "may have been written" outlives a later refusal', () => {
    expect(attempts(minted, [lost('JOB1')]).settled(0, duplicate('JOB1'))).toMatchObject({
      status: 'enqueued',
    });
    expect(attempts(callerId, [lost('JOB1')]).settled(0, duplicate('JOB1'))).toMatchObject({
      status: 'duplicate',
    });
    const unsent = new UnavailableError('not sent');
    expect(attempts(minted, [lost('JOB1')]).settled(0, unsent)).toMatchObject({
      jobId: 'JOB1',
      written: 'maybe',
    });
  });

  it('a key only this invocation held is its own write', () => {
    expect(attempts(minted, [], [0]).settled(0, duplicate('JOB9'))).toMatchObject({
      status: 'enqueued',
    });
  });
});
