// docs/security.md quotes the ACL rules where it explains them; this keeps the quotes equal to
// the constants infra deploys (the constants are the source of truth).
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as rules from '../../src/families/access-rules.js';

const page = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
const quoted = new Set(page.split('\n'));
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
/** Every other user page: a second copy of a rule would drift. */
const others = [
  ['README.md', readme],
  ...readdirSync(new URL('../../docs/', import.meta.url))
    .filter((name) => name.endsWith('.md') && name !== 'security.md')
    .map((name) => [
      `docs/${name}`,
      readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8'),
    ]),
];

describe('the least-privilege ACL in docs/security.md', () => {
  it.each(Object.entries(rules))('quotes %s verbatim, on a line of its own', (_name, rule) => {
    expect(quoted.has(rule)).toBe(true);
  });

  it('quotes no rule string that is not one of the constants', () => {
    const deployed = new Set<string>(Object.values(rules));
    const lines = page.split('\n').filter((line) => line.startsWith('on resetchannels'));
    expect(lines.filter((line) => !deployed.has(line))).toEqual([]);
  });

  it.each(others)('is the one page that quotes them: %s quotes none', (_name, text) => {
    expect(text).not.toContain('on resetchannels');
  });

  it('is linked from the README', () => {
    expect(readme).toContain('(docs/security.md');
  });
});
