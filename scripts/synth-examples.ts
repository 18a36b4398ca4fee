/**
 * Synthesizes each app of examples/ (every cache kind and face the construct composes, and the
 * apps users copy) into a folder of its own, with the package's built constructs (the apps
 * import `echomq-lambda/cdk`, which resolves to this package's dist/: run `npm run build`
 * first). What cfn-lint lints (lint-templates.ts) and what docs/linting.md lists
 * (suppressions-reference.ts) come from these folders.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Synthesizes examples/<name>/app.ts into `<root>/<name>` for every name; those folders. */
export async function synthesizeExamples(root: string): Promise<string[]> {
  if (!existsSync(join(ROOT, 'dist', 'cdk', 'index.mjs'))) {
    throw new Error(
      'dist/cdk/index.mjs is missing: the examples import the built package; run npm run build first.',
    );
  }
  const names = readdirSync(join(ROOT, 'examples')).sort();
  return Promise.all(names.map((name) => synthesize(name, join(root, name))));
}

function synthesize(name: string, outdir: string): Promise<string> {
  const child = spawn('npx', ['tsx', join('examples', name, 'app.ts')], {
    cwd: ROOT,
    env: { ...process.env, CDK_OUTDIR: outdir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stderr: Buffer[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolve(outdir)
        : reject(
            new Error(
              `examples/${name} did not synthesize:\n${Buffer.concat(stderr).toString('utf8')}`,
            ),
          ),
    );
  });
}
