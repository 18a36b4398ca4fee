/**
 * What the local stack runs from the project folder (infra/shared/package-dir.ts finds the folder
 * from the stack's own file, not from the shell's working folder).
 */
import { join } from 'node:path';
import { HOST_MODULE } from '../../module/artifacts.js';

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
