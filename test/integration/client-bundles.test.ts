// The producer client is for callers: no line of it may reach a Lambda bundle. Each built
// function's metafile (dist/meta/, written by scripts/build.ts beside no asset) lists every file
// the bundle was made from; none may be under client/.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshBundle, ROOT } from '../support/bundles.js';

const FUNCTIONS = ['http', 'sqs', 'fence'] as const;

/** The repository files (not node_modules) a bundle was made from, relative to the repository. */
async function sourcesOf(name: (typeof FUNCTIONS)[number]): Promise<string[]> {
  await freshBundle(`functions/${name}`, ['src', 'functions', 'client']);
  const meta = join(ROOT, 'dist', 'meta', `functions-${name}.json`);
  const { inputs } = JSON.parse(readFileSync(meta, 'utf8')) as { inputs: Record<string, unknown> };
  return Object.keys(inputs).filter((source) => !source.includes('node_modules/'));
}

describe('the Lambda bundles', () => {
  it.each(FUNCTIONS)('the %s function holds no file of client/', async (name) => {
    const sources = await sourcesOf(name);
    // The map is read right: the function's own handler is among its sources.
    expect(sources).toContain(`functions/${name}/handler.ts`);
    expect(sources.filter((source) => source.startsWith('client/'))).toEqual([]);
  });
});
