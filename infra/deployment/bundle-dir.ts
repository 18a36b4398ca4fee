/**
 * Where the prebuilt function bundles are unless the deployment names a folder: `dist/functions`
 * of the echomq-lambda package. So a CDK app that installed the package deploys the bundles
 * shipped in node_modules, and the repository's own app, run from source, the ones
 * `npm run build` wrote.
 */
import { join } from 'node:path';
import { packageDir } from '../shared/package-dir.js';

export function defaultBundleDir(): string {
  return join(packageDir(), 'dist', 'functions');
}
