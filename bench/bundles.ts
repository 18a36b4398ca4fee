/**
 * The handlers' bundles: their size on disk, and how long a fresh Node process takes to
 * import each, beside `import('iovalkey')` (what any client costs at a cold start). Imports
 * run in turn, interleaved, so a busy moment hits all three alike.
 */
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { type Spread, spreadOf } from './stats.js';

const run = promisify(execFile);

export interface BundleFigures {
  readonly name: string;
  /** What is imported: a dist path, or a package name. */
  readonly target: string;
  readonly bytes: number | null;
  readonly importMs: Spread;
}

const BUNDLES = [
  { name: 'http', target: 'dist/functions/http/index.mjs' },
  { name: 'sqs', target: 'dist/functions/sqs/index.mjs' },
] as const;

async function importMs(root: string, specifier: string): Promise<number> {
  const source = `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', source], {
    cwd: root,
    env: { ...process.env, AWS_REGION: 'us-east-2' },
  });
  return Number(stdout);
}

export async function measureBundles(root: string, times: number): Promise<BundleFigures[]> {
  const targets = [
    { name: 'iovalkey', target: 'iovalkey', specifier: 'iovalkey', path: undefined },
    ...BUNDLES.map((bundle) => {
      const path = resolve(root, bundle.target);
      return { ...bundle, specifier: pathToFileURL(path).href, path };
    }),
  ];
  const samples = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  // One throwaway pass: the first process after a build pays for a cold file cache.
  for (const target of targets) await importMs(root, target.specifier);
  for (let i = 0; i < times; i++) {
    for (const target of targets)
      samples.get(target.name)?.push(await importMs(root, target.specifier));
  }
  return Promise.all(
    targets.map(async (target) => ({
      name: target.name,
      target: target.target,
      bytes: target.path === undefined ? null : (await stat(target.path)).size,
      importMs: spreadOf(samples.get(target.name) ?? []),
    })),
  );
}
