/**
 * Writes the kinds table of docs/deploy.md, one column per cache kind, from each kind's `facts`
 * (infra/cache/<kind>/kind.ts) in the registry's order, between the table's markers; the prose
 * around it is the page's own. Run it after changing a kind or adding one:
 * `npx tsx scripts/cache-kinds-docs.ts`; a test fails while the page and the kinds differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CacheKindFacts } from '../infra/cache/kind.js';
import { CACHE_KINDS, CACHE_REGISTRY, DEFAULT_CACHE_KIND } from '../infra/cache/registry.js';
import { markdown, withTable } from './settings-docs.js';

export const PAGE = 'docs/deploy.md';

export const MARKERS = {
  begin:
    '<!-- begin cache kinds table: generated from infra/cache/registry.ts by scripts/cache-kinds-docs.ts, do not edit -->',
  end: '<!-- end cache kinds table -->',
};

/** The table's rows: what each fact is called on the page. */
const ROWS: readonly (readonly [keyof CacheKindFacts, string])[] = [
  ['builds', 'what the stack builds'],
  ['family', 'family (`EMQ_EXECUTOR`)'],
  ['acknowledgement', 'acknowledgement (`EMQ_ACK_REPLICAS`)'],
  ['memoryPolicy', 'memory policy'],
  ['durability', 'durability'],
  ['fence', 'fence on every write, paused guard'],
  ['limits', 'limits'],
];

/** A column per kind: its name, and its facts. */
export type KindColumns = readonly { readonly kind: string; readonly facts: CacheKindFacts }[];

/** The registry's kinds, in its order. */
export function registryColumns(): KindColumns {
  return CACHE_KINDS.map((kind) => ({ kind, facts: CACHE_REGISTRY[kind].facts }));
}

export function kindsTable(columns: KindColumns = registryColumns()): string[] {
  const header = columns.map(({ kind }) =>
    kind === DEFAULT_CACHE_KIND ? `\`${kind}\` (default)` : `\`${kind}\``,
  );
  const choices = columns.map(({ kind }) =>
    kind === DEFAULT_CACHE_KIND ? `\`-c cache=${kind}\` (default)` : `\`-c cache=${kind}\``,
  );
  return [
    `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}.`,
    '',
    ...markdown(
      ['', ...header],
      ROWS.map(([fact, label]) => [label, ...columns.map(({ facts }) => facts[fact])]),
    ),
  ];
}

/** The page's text with the table made from `columns`. */
export function generatedPage(columns?: KindColumns): string {
  const text = readFileSync(new URL(`../${PAGE}`, import.meta.url), 'utf8');
  return withTable(text, kindsTable(columns), PAGE, MARKERS);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(new URL(`../${PAGE}`, import.meta.url), generatedPage());
}
