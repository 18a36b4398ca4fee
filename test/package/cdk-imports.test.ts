// `echomq-lambda/cdk` is built from infra/ and what it imports: none of it may come from the
// repository's scripts/ or tests, which the package does not ship and whose dependencies are
// development ones. esbuild's metafile lists every file the entry pulls in.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('echomq-lambda/cdk', () => {
  it('imports nothing from scripts/ or test/', async () => {
    const result = await build({
      entryPoints: ['infra/index.ts'],
      absWorkingDir: ROOT,
      bundle: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      loader: { '.lua': 'text' },
      metafile: true,
      write: false,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs).toContain('infra/constructs/echomq.ts');
    expect(inputs.filter((path) => /^(?:scripts|test)\//.test(path))).toEqual([]);
  });
});
