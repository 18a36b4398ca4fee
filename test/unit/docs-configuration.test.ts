// docs/configuration.md lists every EMQ_* setting with its default and range. This holds the
// table to src/config.ts: the variables loadConfig reads (observed, not listed by hand), the
// defaults of DEFAULTS, the bounds of LIMITS and the executors of EXECUTORS.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type Config,
  DEFAULTS,
  type Env,
  EXECUTORS,
  LIMITS,
  loadConfig,
} from '../../src/config.js';
import { SETTINGS } from '../../src/settings-table.js';
import { tableUnder } from '../support/markdown.js';

const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
const source = readFileSync(new URL('../../src/config.ts', import.meta.url), 'utf8');

interface Row {
  readonly name: string;
  readonly defaultCell: string;
  readonly range: string;
  readonly meaning: string;
}

const rows: Row[] = tableUnder(page, '## Settings', 'docs/configuration.md').map(
  ([name = '', defaultCell = '', range = '', meaning = '']) => ({
    name: name.replace(/^`|`$/g, ''),
    defaultCell,
    range,
    meaning,
  }),
);
const byName = new Map(rows.map((row) => [row.name, row]));

/** The variables loadConfig reads from `env`: every name it asks the environment for. */
function namesRead(env: Record<string, string>): Set<string> {
  const seen = new Set<string>();
  const watched = new Proxy(env, {
    get(target, name) {
      if (typeof name === 'string') seen.add(name);
      return typeof name === 'string' ? target[name] : undefined;
    },
  });
  loadConfig(watched as Env);
  return seen;
}

/** Every EMQ_* variable loadConfig reads, with IAM off and with IAM on (its companions). */
const READ = new Set(
  [
    ...namesRead({}),
    ...namesRead({
      EMQ_IAM_AUTH: 'true',
      EMQ_USERNAME: 'emq-iam',
      EMQ_IAM_CACHE_NAME: 'emq-cache',
      EMQ_IAM_REGION: 'eu-west-1',
    }),
  ].filter((name) => name.startsWith('EMQ_')),
);

/**
 * Which Config field each variable fills: the settings table's rows (their name is the field),
 * and the lines of loadConfig's result that read a variable by name.
 */
const FIELD_OF = new Map<string, keyof Config>([
  ...[...source.matchAll(/^ {4}(\w+): [^\n]*?'(EMQ_[A-Z0-9_]+)'/gm)].map(
    ([, field, name]) => [name ?? '', field as keyof Config] as const,
  ),
  ...Object.entries(SETTINGS).map(([field, row]) => [row.env, field as keyof Config] as const),
]);

/** How the page writes a default. */
function shown(value: Config[keyof Config]): string {
  if (value === undefined) return 'none';
  return `\`${Array.isArray(value) ? value.join(',') : String(value)}\``;
}

describe('docs/configuration.md', () => {
  it('lists every variable src/config.ts reads, once, and nothing else', () => {
    expect(rows.length).toBe(byName.size);
    expect([...byName.keys()].sort()).toEqual([...READ].sort());
  });

  it.each(rows)('gives $name the default src/config.ts uses', (row) => {
    const field = FIELD_OF.get(row.name);
    if (field !== undefined && field !== 'iam') {
      expect(row.defaultCell).toBe(shown(DEFAULTS[field]));
    }
    const fallback = /^from `([A-Z0-9_]+)`$/.exec(row.defaultCell)?.[1];
    if (fallback !== undefined) {
      expect(source).toContain(`read('${row.name}') ?? read('${fallback}')`);
      return;
    }
    // A literal fallback written beside the read, as the IAM companions' are.
    const literal = new RegExp(`read\\('${row.name}'\\) \\?\\? '([^']*)'`).exec(source)?.[1];
    if (literal !== undefined) expect(row.defaultCell).toBe(`\`${literal}\``);
    if (row.defaultCell === 'none') {
      expect(literal).toBeUndefined();
      return;
    }
    // Setting the documented default changes nothing.
    const value = /^`([^`]+)`$/.exec(row.defaultCell)?.[1];
    expect(value, `${row.name}: a default is \`value\`, none or from \`VARIABLE\``).toBeDefined();
    expect(loadConfig({ [row.name]: value })).toEqual(loadConfig({}));
  });

  it.each(rows)('gives $name the range src/config.ts enforces', (row) => {
    const field = FIELD_OF.get(row.name);
    const limits =
      field === undefined ? undefined : Object.entries(LIMITS).find(([key]) => key === field)?.[1];
    expect(row.range).toBe(limits === undefined ? '-' : `\`${limits.min}\` to \`${limits.max}\``);
  });

  it('names every executor src/config.ts accepts', () => {
    const meaning = byName.get('EMQ_EXECUTOR')?.meaning ?? '';
    for (const executor of EXECUTORS) expect(meaning).toContain(`\`${executor}\``);
  });
});
