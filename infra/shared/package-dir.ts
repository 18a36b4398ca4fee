/**
 * The folder of the echomq-lambda package this file belongs to, found from the file itself
 * rather than from the shell's working folder: the repository when run from source, the
 * package's folder in node_modules when a CDK app installed it (its constructs are bundled into
 * dist/, so the path from this file to the folder differs between the two). What the
 * constructs deploy from the package (function bundles, the module, node scripts) is found
 * from here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'echomq-lambda';

/** The folder holding this package's package.json, searched upwards from `from`. */
export function packageDir(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && nameOf(manifest) === PACKAGE_NAME) return dir;
    if (dirname(dir) === dir) {
      throw new Error(`Cannot find the ${PACKAGE_NAME} package folder above ${from}.`);
    }
  }
}

function nameOf(manifest: string): unknown {
  try {
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name;
  } catch {
    return undefined;
  }
}
