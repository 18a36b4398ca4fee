/**
 * Where the project is: the stack runs as a bundle in dist/, and finds the module and the
 * install script from its own file rather than from the shell's working folder.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HOST_MODULE } from '../../module/artifacts.js';

const PACKAGE_NAME = 'echomq-lambda';

/** The folder holding this project's package.json, searched upwards from `from`. */
export function projectDir(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && nameOf(manifest) === PACKAGE_NAME) return dir;
    if (dirname(dir) === dir) {
      throw new Error(`Cannot find the ${PACKAGE_NAME} project folder above ${from}.`);
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

export interface ProjectFiles {
  /** The reference module built by `npm run build:module`. */
  readonly module: string;
  /** Installs Valkey 8 where it can, else prints the command to run. */
  readonly installValkey: string;
  /** The functions' bundles built by `npm run build`, which the stack runs as Lambda does. */
  readonly functions: { readonly http: string; readonly sqs: string };
}

export function projectFiles(dir: string): ProjectFiles {
  const bundle = (name: string) => join(dir, 'dist', 'functions', name, 'index.mjs');
  return {
    module: join(dir, HOST_MODULE),
    installValkey: join(dir, 'scripts', 'install-valkey.sh'),
    functions: { http: bundle('http'), sqs: bundle('sqs') },
  };
}
