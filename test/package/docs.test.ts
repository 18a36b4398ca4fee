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
import { SETTING_NAMES } from '../../src/settings/settings-table.js';

/** The prop each section of docs/props.md describes the fields of. */
const SECTION_PATHS: Readonly<Record<string, string>> = {
  EchoMqProps: '',
  EchoMqHttp: 'http.',
  HttpOptions: 'http.',
  ApiAuth: 'http.auth.',
  EchoMqSqs: 'sqs.',
  SqsOptions: 'sqs.',
  EchoMqOptions: 'options.',
};

/** Every prop path docs/props.md documents (`sqs.maxConcurrency`, `options.runtime`, ...). */
function documentedPaths(): Set<string> {
  const paths = new Set<string>(SETTING_NAMES.map((name) => `settings.${name}`));
  let prefix: string | undefined;
  for (const line of propsReference().split('\n')) {
    const section = /^## (\w+)/.exec(line)?.[1];
    if (section !== undefined) prefix = SECTION_PATHS[section];
    const prop = /^\| `(\w+)` \|/.exec(line)?.[1];
    if (prop !== undefined && prefix !== undefined) paths.add(`${prefix}${prop}`);
  }
  return paths;
}

describe('prop names in the pages', () => {
  const documented = documentedPaths();
  it.each(['docs/quotas.md', 'docs/deploy.md'])(
    '%s names only props the construct has (as docs/props.md documents them)',
    (page) => {
      const text = readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8');
      const named = [...text.matchAll(/`((?:options|http|sqs|settings)\.[A-Za-z.]+)`/g)].map(
        (match) => match[1] as string,
      );
      // A path deeper than the props' own fields (sqs.redelivery.visibilityTimeout, http.auth.issuer)
      // is held by its documented part.
      const unknown = named.filter(
        (path) =>
          !path
            .split('.')
            .map((_, index, parts) => parts.slice(0, index + 1).join('.'))
            .some((prefix) => prefix.includes('.') && documented.has(prefix)),
      );
      expect(unknown).toEqual([]);
    },
  );
});

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
