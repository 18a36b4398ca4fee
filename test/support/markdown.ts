/** Reading the project's Markdown pages in tests: the rows of a table under a heading. */

/**
 * The rows of the first table under the line `heading` of `text`, header and separator left
 * out; cells trimmed, `\|` kept inside a cell. Throws when the heading is missing.
 */
export function tableUnder(text: string, heading: string, where = 'the page'): string[][] {
  const lines = text.split('\n');
  const start = lines.indexOf(heading);
  if (start === -1) throw new Error(`${where} has no "${heading}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('#')) break;
    if (!line.startsWith('|')) {
      if (rows.length > 0) break;
      continue;
    }
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
  }
  return rows.slice(2);
}
