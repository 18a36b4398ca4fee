/**
 * Writes the settings tables of docs/configuration.md (every EMQ_* variable) and docs/deploy.md
 * (the construct's settings) from the rows of src/settings/settings-table.ts, between each page's
 * begin and end markers; the prose around them is the page's own. Run it after changing a row:
 * `npx tsx scripts/settings-docs.ts`; a test fails while a page and the rows differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FIELDS, type Field, ROWS, type Setting } from '../src/settings/settings-table.js';

/** The rows the tables are made of, by name (the settings table; a test passes others). */
export type Rows = Readonly<Record<string, Setting<unknown>>>;

/** The table of one page: its path from the repository root, and its text for the rows. */
interface Page {
  readonly path: string;
  readonly table: (rows: Rows) => string[];
}

export const PAGES: readonly Page[] = [
  { path: 'docs/configuration.md', table: variablesTable },
  { path: 'docs/deploy.md', table: constructTable },
];

const ROOT = new URL('../', import.meta.url);

/** The settings table's rows, in table order. */
export function tableRows(): Rows {
  return Object.fromEntries(FIELDS.map((field: Field) => [field, ROWS[field]]));
}

export const BEGIN =
  '<!-- begin settings table: generated from src/settings/settings-table.ts by scripts/settings-docs.ts, do not edit -->';
export const END = '<!-- end settings table -->';

/** `text` with the lines between its markers (the settings table's, unless told) replaced by `table`. */
export function withTable(
  text: string,
  table: readonly string[],
  where: string,
  markers: { readonly begin: string; readonly end: string } = { begin: BEGIN, end: END },
): string {
  const lines = text.split('\n');
  const begin = lines.indexOf(markers.begin);
  const end = lines.indexOf(markers.end);
  if (begin === -1 || end < begin) {
    throw new Error(`${where} has no "${markers.begin}" ... "${markers.end}"`);
  }
  return [...lines.slice(0, begin + 1), ...table, ...lines.slice(end)].join('\n');
}

/** docs/configuration.md: every variable loadConfig reads. */
export function variablesTable(rows: Rows): string[] {
  return markdown(
    ['variable', 'default', 'range', 'in a deployment', 'meaning'],
    Object.entries(rows).flatMap(([name, row]) => [
      [code(row.env), row.shown ?? shown(row.default), range(row), setBy(name, row), row.doc],
      ...(row.companions ?? []).map((companion) => [
        code(companion.env),
        companion.shown,
        '-',
        setBy(name, row),
        companion.doc,
      ]),
    ]),
  );
}

/** docs/deploy.md: the construct's settings, each a context key and a `settings` field. */
export function constructTable(rows: Rows): string[] {
  return markdown(
    ['context key', 'default', 'range', 'variable', 'meaning'],
    Object.entries(rows).flatMap(([name, row]) =>
      row.deploy.by === 'setting'
        ? [
            [
              code(name),
              row.deploy.default ?? shown(row.default),
              range(row),
              code(row.env),
              row.doc,
            ],
          ]
        : [],
    ),
  );
}

function setBy(name: string, row: Setting<unknown>): string {
  switch (row.deploy.by) {
    case 'setting':
      return `setting ${code(name)}`;
    case 'cache':
      return 'the cache';
    case 'queues':
      return 'the queues';
    case 'construct':
      return 'the construct';
    case 'local':
      return '-';
  }
}

/** How the pages write a default. */
function shown(value: unknown): string {
  if (value === undefined) return 'none';
  return code(Array.isArray(value) ? value.join(',') : String(value));
}

function range(row: Setting<unknown>): string {
  return row.bounds === undefined ? '-' : `${code(row.bounds.min)} to ${code(row.bounds.max)}`;
}

function code(value: string | number): string {
  return `\`${value}\``;
}

/** A markdown table; a `|` inside a cell is escaped. */
export function markdown(
  header: readonly string[],
  body: readonly (readonly string[])[],
): string[] {
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell) => cell.replace(/(?<!\\)\|/g, '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...body.map(line)];
}

/** Each page's text with its table made from `rows`. */
export function generatedPages(rows: Rows = tableRows()): { path: string; text: string }[] {
  return PAGES.map(({ path, table }) => ({
    path,
    text: withTable(readFileSync(new URL(path, ROOT), 'utf8'), table(rows), path),
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const { path, text } of generatedPages()) writeFileSync(new URL(path, ROOT), text);
}
