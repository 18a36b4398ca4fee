// The values the CLI's help documents against the code that checks them: every value shown
// must be one the core accepts, every value the core accepts must be shown, and every limit
// in a help text must be the limit the parser or the core enforces. A drift fails here.
import { describe, expect, it } from 'vitest';
import { MAX_MAX } from '../../cli/commands/dlq.js';
import { MAX_COUNT } from '../../cli/commands/id.js';
import { MAX_LIMIT } from '../../cli/commands/pending.js';
import { configFrom, FLAG_OVERRIDES } from '../../cli/connection.js';
import { CliFailure, EXIT_USAGE } from '../../cli/failures.js';
import type { Io } from '../../cli/io.js';
import { run } from '../../cli/program.js';
import {
  accepts,
  duration,
  FAMILY_MEANINGS,
  familyChoices,
  RULES,
  settingsHelp,
} from '../../cli/settings.js';
import { ConfigError, loadConfig } from '../../src/index.js';
import { isJobId, jobIdAt, mintId } from '../../src/keyspace/ids.js';
import {
  assertCallerIdTime,
  assertIdempotencyKey,
  assertQueue,
} from '../../src/keyspace/keyspace.js';
import { DEFAULTS } from '../../src/settings/config.js';

/** The values the core lists when it refuses one: its own words, read back. */
function coreChoices(variable: string): string[] {
  try {
    loadConfig({ [variable]: '\u0000not-a-choice' });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const listed = /one of ([^.]+)\./.exec(error.message)?.[1];
    if (listed === undefined) throw new Error(`no list in: ${error.message}`);
    return listed.split(',').map((value) => value.trim());
  }
  throw new Error(`${variable} accepted a value outside its set`);
}

function helpOf(args: readonly string[]): Promise<string> {
  let out = '';
  const io: Io = {
    out: (text) => {
      out += typeof text === 'string' ? text : Buffer.from(text).toString();
    },
    err: () => {},
    readStdin: async () => Buffer.alloc(0),
    stdinIsTerminal: false,
    env: {},
  };
  return run([...args, '--help'], io).then(() => out);
}

describe('EMQ_EXECUTOR in the help', () => {
  it('lists exactly the families the core accepts, in its words', () => {
    expect(familyChoices()).toEqual(coreChoices('EMQ_EXECUTOR'));
    const line = /EMQ_EXECUTOR +(.+) \(default (\w+)\):/.exec(settingsHelp());
    expect(line?.[1]).toBe(coreChoices('EMQ_EXECUTOR').join(', '));
    expect(line?.[2]).toBe(loadConfig({}).family);
  });

  it('describes every family the core accepts, and offers none it refuses', () => {
    const help = settingsHelp();
    for (const [family, meaning] of Object.entries(FAMILY_MEANINGS)) {
      const shown = help.includes(`${family.padEnd(9)}${meaning}`);
      expect(shown, family).toBe(accepts('EMQ_EXECUTOR', family));
    }
    // The lead's core adds the script family; its line is ready for it.
    expect(Object.keys(FAMILY_MEANINGS)).toEqual(['auto', 'native', 'function', 'script']);
  });
});

describe('the other settings in the help', () => {
  it('shows the defaults the core applies', () => {
    const help = settingsHelp();
    const config = loadConfig({});
    expect(help).toContain(`(default ${config.urls.join(',')})`);
    expect(help).toContain(`(default ${config.wire})`);
    expect(config.cluster).toBe(false);
    expect(help).toMatch(/EMQ_CLUSTER +true for a Valkey cluster, or false \(default false\)/);
  });

  it('accepts the URL schemes and switch values it documents, and refuses others', () => {
    expect(accepts('EMQ_URL', 'redis://h:1')).toBe(true);
    expect(accepts('EMQ_URL', 'rediss://h:1')).toBe(true);
    expect(accepts('EMQ_URL', 'http://h:1')).toBe(false);
    expect(accepts('EMQ_CLUSTER', 'true')).toBe(true);
    expect(accepts('EMQ_CLUSTER', 'false')).toBe(true);
    expect(accepts('EMQ_CLUSTER', 'yes')).toBe(false);
  });
});

describe('argument rules in the help', () => {
  it('describes queue names as the core checks them', () => {
    expect(RULES.queue).toBe('1 to 64 of A-Z a-z 0-9 . _ - (not . or ..)');
    expect(() => assertQueue(`${'a'.repeat(60)}Z9._-`.slice(0, 64))).not.toThrow();
    expect(() => assertQueue('a'.repeat(65))).toThrow();
    for (const bad of ['', '.', '..', 'a:b', 'a b', 'a{b}'])
      expect(() => assertQueue(bad)).toThrow();
  });

  it('describes job ids and idempotency keys as the core checks them', () => {
    expect(RULES.jobId).toMatch(/^JOB \+ 11 base62 characters/);
    const id = mintId();
    expect(id).toMatch(/^JOB[0-9A-Za-z]{11}$/);
    expect(isJobId(id)).toBe(true);
    expect(RULES.idempotencyKey).toBe('1 to 256 printable ASCII characters, no spaces');
    expect(() => assertIdempotencyKey('~'.repeat(256))).not.toThrow();
    expect(() => assertIdempotencyKey('~'.repeat(257))).toThrow();
    expect(() => assertIdempotencyKey('a b')).toThrow();
  });

  it('gives the caller-id time limits the core enforces by default', () => {
    expect(RULES.callerIdAge).toBe('EMQ_CALLER_ID_MAX_AGE_MS, default one day');
    expect(RULES.callerIdFuture).toBe('one minute');
    const now = Date.now();
    const at = (offsetMs: number) => jobIdAt(now + offsetMs, 0);
    const check = (offsetMs: number) => () =>
      assertCallerIdTime(at(offsetMs), DEFAULTS.callerIdMaxAgeMs, now);
    expect(check(-86_400_000 + 1_000)).not.toThrow();
    expect(check(-86_400_000 - 1_000)).toThrow();
    expect(check(59_000)).not.toThrow();
    expect(check(61_000)).toThrow();
  });

  it('words durations without rounding', () => {
    expect([duration(86_400_000), duration(7_200_000), duration(90_000), duration(1_500)]).toEqual([
      'one day',
      '2 hours',
      '90 seconds',
      '1500 ms',
    ]);
  });

  it("puts the rules in the commands' help", async () => {
    const enqueue = await helpOf(['enqueue']);
    for (const rule of [RULES.queue, RULES.jobId, RULES.idempotencyKey]) {
      expect(enqueue.replace(/\s+/g, ' ')).toContain(rule);
    }
    expect((await helpOf(['id'])).replace(/\s+/g, ' ')).toContain(RULES.callerIdAge);
  });
});

describe('numeric flags: the range in the help is the range parsed', () => {
  const ranges = [
    { args: ['id'], flag: '--count', max: MAX_COUNT },
    { args: ['pending', 'q'], flag: '--limit', max: MAX_LIMIT },
    { args: ['dlq', 'http://127.0.0.1:1/000000000000/q'], flag: '--max', max: MAX_MAX },
  ];

  for (const { args, flag, max } of ranges) {
    it(`${args[0]} ${flag}: 1 to ${max}`, async () => {
      expect((await helpOf([args[0] ?? ''])).replace(/\s+/g, ' ')).toContain(`(1 to ${max};`);
      const io: Io = {
        out: () => {},
        err: () => {},
        readStdin: async () => Buffer.alloc(0),
        stdinIsTerminal: false,
        // Nothing listens on port 1: an accepted value fails later, as unavailable (exit 1).
        env: { EMQ_URL: 'redis://127.0.0.1:1' },
      };
      for (const bad of ['0', String(max + 1), '1.5', 'ten']) {
        expect(await run([...args, flag, bad], io), `${flag} ${bad}`).toBe(EXIT_USAGE);
      }
      expect(await run([...args, flag, String(max)], io)).not.toBe(EXIT_USAGE);
    });
  }
});

describe('flags that override an EMQ_* variable', () => {
  const bad: Record<string, string> = { url: 'http://user:secret@host', wire: 'has space' };

  for (const { key, flag, variable } of FLAG_OVERRIDES) {
    if (bad[key] === undefined) continue;
    it(`names ${flag}, not ${variable}, with what it expects`, () => {
      let thrown: unknown;
      try {
        configFrom({}, { [key]: bad[key] });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(CliFailure);
      const failure = thrown as CliFailure;
      expect(failure.exitCode).toBe(EXIT_USAGE);
      expect(failure.message).toMatch(
        new RegExp(`^${flag} is invalid: expected .+\\(${flag} overrides ${variable}\\)\\.$`),
      );
      expect(failure.message).not.toContain('secret');
      expect(failure.message).not.toContain(`${variable} is invalid`);
    });
  }

  it('covers every flag-shaped override the connection flags have', () => {
    expect(FLAG_OVERRIDES.map(({ flag, variable }) => `${flag}=${variable}`)).toEqual([
      '--url=EMQ_URL',
      '--cluster=EMQ_CLUSTER',
      '--wire=EMQ_WIRE',
    ]);
  });

  it('names the variable when the environment holds the bad value', () => {
    expect(() => configFrom({ EMQ_URL: 'http://x' }, {})).toThrow(/^EMQ_URL is invalid: /);
  });

  it('lets a good flag win over a bad variable', () => {
    expect(configFrom({ EMQ_URL: 'http://x' }, { url: 'redis://h:1' }).urls).toEqual([
      'redis://h:1',
    ]);
  });
});

describe('several URLs without --cluster', () => {
  it('is usage, named as given, before the connector is asked', () => {
    expect(() => configFrom({}, { url: 'redis://a:1,redis://b:1' })).toThrow(
      /^--url holds 2 URLs, which are cluster seeds: add --cluster/,
    );
    expect(() => configFrom({ EMQ_URL: 'redis://a:1,redis://b:1' }, {})).toThrow(
      /^EMQ_URL holds 2/,
    );
    expect(configFrom({}, { url: 'redis://a:1,redis://b:1', cluster: true }).urls).toHaveLength(2);
  });
});
