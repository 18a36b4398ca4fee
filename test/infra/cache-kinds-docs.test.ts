// The kinds table of docs/deploy.md is generated from the registry's rows
// (scripts/cache-kinds-docs.ts): the page holds what the generator makes of them, and a new
// kind is one more column, with nothing else to write.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  generatedPage,
  kindsTable,
  PAGE,
  registryColumns,
} from '../../scripts/cache-kinds-docs.js';

describe("docs/deploy.md's cache kinds table", () => {
  it('holds what scripts/cache-kinds-docs.ts makes of the registry today', () => {
    const page = readFileSync(new URL(`../../${PAGE}`, import.meta.url), 'utf8');
    expect(page, 'run: npx tsx scripts/cache-kinds-docs.ts').toBe(generatedPage());
  });

  it('gives a new kind its column and its name in the list, from its facts alone', () => {
    const facts = {
      builds: 'a dummy',
      family: '`function`',
      acknowledgement: '`0`',
      memoryPolicy: '`noeviction`',
      durability: 'none',
      fence: 'no',
      limits: 'none',
    };
    const before = kindsTable();
    const after = kindsTable([...registryColumns(), { kind: 'dummy', facts }]);
    expect(after[0]).toBe(before[0]?.replace(/ or (.*)\.$/, ', $1 or `-c cache=dummy`.'));
    // Each row is the same with one more cell at its end.
    expect(after.slice(2).map((line) => line.replace(/[^|]*\|$/, ''))).toEqual(before.slice(2));
  });
});
