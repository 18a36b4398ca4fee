// The producer client is for callers: no line of it may reach a Lambda bundle. Each built
// function's source map lists every file the bundle was made from; none may be under client/.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { freshBundle } from '../support/bundles.js';

const FUNCTIONS = ['http', 'sqs', 'fence'] as const;

/** The repository files (not node_modules) a bundle was made from, relative to the repository. */
async function sourcesOf(name: (typeof FUNCTIONS)[number]): Promise<string[]> {
  const bundle = await freshBundle(`functions/${name}`, ['src', 'functions', 'client']);
  const map = JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as { sources: string[] };
  return map.sources
    .filter((source) => !source.includes('node_modules/'))
    .map((source) => source.replace(/^(\.\.\/)+/, ''));
}

describe('the Lambda bundles', () => {
  it.each(FUNCTIONS)('the %s function holds no file of client/', async (name) => {
    const sources = await sourcesOf(name);
    // The map is read right: the function's own handler is among its sources.
    expect(sources).toContain(`functions/${name}/handler.ts`);
    expect(sources.filter((source) => source.startsWith('client/'))).toEqual([]);
  });
});
