// The built bundles, for tests that load them as Lambda does: rebuilt only when a source the
// bundle is made from is newer than the bundle (npm test builds them first anyway).
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const run = promisify(execFile);
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The absolute path of `dist/<folder>/index.mjs`. */
export function bundlePath(folder: string): string {
  return join(ROOT, 'dist', folder, 'index.mjs');
}

/** Runs `npm run build` when any file under `sources` is newer than the bundle. */
export async function freshBundle(folder: string, sources: readonly string[]): Promise<string> {
  const bundle = bundlePath(folder);
  if (modified(bundle) < (await newestUnder(sources))) {
    await run('npm', ['run', '-s', 'build'], { cwd: ROOT, timeout: 120_000 });
  }
  return bundle;
}

async function newestUnder(folders: readonly string[]): Promise<number> {
  let newest = 0;
  for (const folder of folders) {
    const entries = await readdir(join(ROOT, folder), { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      if (entry.isFile()) newest = Math.max(newest, modified(join(entry.parentPath, entry.name)));
    }
  }
  return newest;
}

function modified(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}
