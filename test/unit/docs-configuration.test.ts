// The settings tables of docs/configuration.md and docs/deploy.md are generated from the rows of
// src/settings/settings-table.ts (scripts/settings-docs.ts). This holds the pages to the generator,
// the rows to what loadConfig reads (observed, not listed by hand), and the documented defaults to
// what loadConfig does with them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  BEGIN,
  constructTable,
  END,
  generatedPages,
  type Rows,
  tableRows,
  variablesTable,
  withTable,
} from '../../scripts/settings-docs.js';
import { type Env, FAMILY_CHOICES, loadConfig } from '../../src/settings/config.js';
import { wholeNumber } from '../../src/settings/settings-parsers.js';
import { SETTING_NAMES, VARIABLES } from '../../src/settings/settings-table.js';
import { tableUnder } from '../support/markdown.js';

const root = new URL('../../', import.meta.url);
const page = (path: string) => readFileSync(new URL(path, root), 'utf8');

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

const IAM = {
  EMQ_IAM_AUTH: 'true',
  EMQ_USERNAME: 'emq-iam',
  EMQ_IAM_CACHE_NAME: 'emq-cache',
  EMQ_IAM_REGION: 'eu-west-1',
};

/** Every EMQ_* variable loadConfig reads, with IAM off and with IAM on (its companions). */
const READ = new Set(
  [...namesRead({}), ...namesRead(IAM)].filter((name) => name.startsWith('EMQ_')),
);

const rows = tableUnder(page('docs/configuration.md'), '## Settings', 'docs/configuration.md');

describe('the settings tables of the docs', () => {
  it.each(generatedPages())(
    '$path holds what scripts/settings-docs.ts makes of the rows today',
    ({ path, text }) => {
      expect(page(path), 'run: npx tsx scripts/settings-docs.ts').toBe(text);
    },
  );

  it('list a new row in both tables, and nothing else changes: a new setting is one row', () => {
    const fresh: Rows = {
      ...tableRows(),
      pollMs: {
        env: 'EMQ_POLL_MS',
        parse: wholeNumber,
        default: 50,
        bounds: { min: 1, max: 60_000 },
        deploy: { by: 'setting', faces: 'all' },
        doc: 'How often to poll.',
      },
    };
    const row = '`EMQ_POLL_MS` | `50` | `1` to `60000` | setting `pollMs` | How often to poll. |';
    expect(variablesTable(fresh)).toEqual([...variablesTable(tableRows()), `| ${row}`]);
    expect(constructTable(fresh)).toEqual([
      ...constructTable(tableRows()),
      '| `pollMs` | `50` | `1` to `60000` | `EMQ_POLL_MS` | How often to poll. |',
    ]);
  });

  it('keep the prose around the markers, and refuse a page without them', () => {
    const text = ['# Page', 'before', BEGIN, 'stale', END, 'after'].join('\n');
    expect(withTable(text, ['| a |'], 'page')).toBe(
      ['# Page', 'before', BEGIN, '| a |', END, 'after'].join('\n'),
    );
    expect(() => withTable('# Page', [], 'page.md')).toThrow(/page.md has no/);
  });
});

describe('docs/configuration.md', () => {
  it('lists every variable loadConfig reads, once, and nothing else', () => {
    const names = rows.map(([name = '']) => name.replace(/^`|`$/g, ''));
    expect(names.length).toBe(new Set(names).size);
    expect([...names].sort()).toEqual([...READ].sort());
    expect([...VARIABLES].sort()).toEqual([...READ].sort());
  });

  it.each(rows)('gives %s a default that changes nothing when set', (name, defaultCell) => {
    const variable = name?.replace(/^`|`$/g, '') ?? '';
    const fallback = /^from `([A-Z0-9_]+)`$/.exec(defaultCell ?? '')?.[1];
    const value = /^`([^`]+)`$/.exec(defaultCell ?? '')?.[1];
    if (fallback !== undefined) {
      // With IAM on, the variable unset reads its fallback.
      const without = Object.fromEntries(Object.entries(IAM).filter(([key]) => key !== variable));
      expect(loadConfig({ ...without, [fallback]: 'us-east-2' })).toEqual(
        loadConfig({ ...IAM, [variable]: 'us-east-2' }),
      );
      return;
    }
    if (defaultCell === 'none') return;
    expect(value, `${variable}: a default is \`value\`, none or from \`VARIABLE\``).toBeDefined();
    expect(loadConfig({ [variable]: value })).toEqual(loadConfig({}));
    if (!(variable in IAM)) {
      expect(loadConfig({ ...IAM, [variable]: value })).toEqual(loadConfig(IAM));
    }
  });

  it('names every family loadConfig accepts', () => {
    const meaning = rows.find(([name]) => name === '`EMQ_EXECUTOR`')?.[4] ?? '';
    for (const family of FAMILY_CHOICES) expect(meaning).toContain(`\`${family}\``);
  });
});

describe('docs/deploy.md', () => {
  it("lists the construct's settings, in table order", () => {
    const listed = tableUnder(page('docs/deploy.md'), "### The functions' settings").map(
      ([key = '']) => key.replace(/^`|`$/g, ''),
    );
    expect(listed).toEqual(SETTING_NAMES);
  });
});
