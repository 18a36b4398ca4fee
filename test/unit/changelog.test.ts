// CHANGELOG.md's newest release is this package.json's version, and names the wire identity
// and the `emq` library version this code runs, so a change of either needs a release entry.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LIBRARY_VERSION } from '../../src/families/library.js';
import { DEFAULTS } from '../../src/settings/config.js';

const read = (name: string) => readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8');
const { version } = JSON.parse(read('package.json')) as { version: string };
// The newest release: the first section after the changes not yet released, if any.
const newest =
  read('CHANGELOG.md')
    .split(/^## /m)
    .slice(1)
    .find((section) => !section.startsWith('Unreleased\n')) ?? '';

describe('CHANGELOG.md', () => {
  it('opens with this version, naming its wire identity and library version', () => {
    expect(newest.split('\n')[0]).toBe(version);
    expect(newest).toContain(
      `Wire identity \`${DEFAULTS.wire}\`, \`emq\` library \`${LIBRARY_VERSION}\`.`,
    );
  });
});
