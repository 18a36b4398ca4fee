// The README quotes the ACL rules; this keeps the quotes equal to the constants infra deploys.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as rules from '../../src/access-rules.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const quoted = new Set(readme.split('\n'));

describe('the README security section', () => {
  it.each(Object.entries(rules))('quotes %s verbatim, on a line of its own', (_name, rule) => {
    expect(quoted.has(rule)).toBe(true);
  });
});
