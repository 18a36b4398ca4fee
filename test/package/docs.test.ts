// The generated reference pages match the code they are generated from: the props' TSDoc
// (docs/props.md) and the acknowledgments the constructs make in every example app, with the
// cfn-lint errors CI accepts (docs/linting.md). A stale page names the script that rewrites it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PAGE as PROPS_PAGE, propsReference } from '../../scripts/props-reference.js';
import {
  PAGE as LINTING_PAGE,
  suppressionsReference,
} from '../../scripts/suppressions-reference.js';

describe('generated docs', () => {
  it('docs/props.md is the props as their TSDoc says (npx tsx scripts/props-reference.ts)', () => {
    expect(readFileSync(PROPS_PAGE, 'utf8')).toBe(propsReference());
  });

  it('docs/linting.md lists every acknowledgment the constructs make and every cfn-lint error accepted (npx tsx scripts/suppressions-reference.ts)', async () => {
    const page = await suppressionsReference();
    expect(readFileSync(LINTING_PAGE, 'utf8')).toBe(page);
    // The framework dispatcher's runtime rule, which newer nag releases raise, is listed.
    expect(page).toMatch(
      /\| `Serverless-LambdaLatestVersion` \| `Fence\/Provider\/framework-onEvent` \|/,
    );
  }, 300_000);
});
