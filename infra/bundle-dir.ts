/**
 * Where the prebuilt function bundles are unless the settings name a folder: `dist/functions`
 * of the echomq-lambda package this file belongs to, found from the file itself rather than
 * from the shell's working folder. So a CDK app that installed the package deploys the bundles
 * shipped in node_modules, and the repository's own app, run from source, the ones
 * `npm run build` wrote.
 */
import { join } from 'node:path';
import { projectDir } from '../scripts/local/project.js';

export function defaultBundleDir(): string {
  return join(projectDir(), 'dist', 'functions');
}
