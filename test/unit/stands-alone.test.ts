// The repository stands alone: what the code relies on is stated in docs/, and every comment
// cites a page there. No tracked source file names the contract document the package was
// first written against, which is not in the repository and which a maintainer cannot follow.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCE = /\.(?:ts|mts|lua|c|h|sh|md|ya?ml)$|(?:^|\/)Makefile$/;
// Spelled in two halves so that this file does not name it; KEYSPEC_* (the module API's
// key-spec flags) is a word of its own and is not matched.
const CITATION = new RegExp(`\\b${'SP'}EC\\b`);

function tracked(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((path) => SOURCE.test(path) && !/(?:^|\/)(?:node_modules|dist)\//.test(path));
}

describe('the repository', () => {
  it('has tracked source files to look at', () => {
    expect(tracked().length).toBeGreaterThan(100);
  });

  it('cites docs/ pages, never the contract document outside it', () => {
    const citing = tracked().flatMap((path) =>
      readFileSync(join(ROOT, path), 'utf8')
        .split('\n')
        .flatMap((line, index) => (CITATION.test(line) ? [`${path}:${index + 1}`] : [])),
    );
    expect(citing).toEqual([]);
  });
});
