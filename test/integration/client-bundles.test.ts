// The producer client is for callers: no line of it may reach a Lambda bundle. Each built
// function's metafile (dist/meta/, written by scripts/build.ts beside no asset) lists every file
// the bundle was made from; none may be under client/. The other way, the client stands on its
// own: bundled alone, it holds no file of the server's but the id minter.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
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

describe('the client, bundled alone', () => {
  it('holds its own files and the id minter, and nothing else of the repository', async () => {
    // As a caller's bundler would: everything but the AWS SDK, which the client loads only
    // when it signs or sends to SQS.
    const { metafile } = await build({
      entryPoints: [join(ROOT, 'client', 'index.ts')],
      absWorkingDir: ROOT,
      bundle: true,
      platform: 'node',
      format: 'esm',
      external: ['@aws-sdk/*', '@smithy/*'],
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const sources = Object.keys(metafile.inputs);
    expect(sources).toContain('client/index.ts');
    expect(sources.filter((source) => !source.startsWith('client/'))).toEqual([
      'src/keyspace/ids.ts',
    ]);
  });
});
