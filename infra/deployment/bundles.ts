/**
 * The prebuilt function bundles the stack deploys. `npm run build` writes them; the stack only
 * points Lambda at them, so synthesis never runs a bundler.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The bundle folders under the bundle directory, one per function: each face's (its row of
 * infra/faces/registry.ts names one of these), the installer's and the rotation's.
 */
export const BUNDLES = ['http', 'sqs', 'fence', 'rotate'] as const;
export type BundleName = (typeof BUNDLES)[number];

/** Lambda loads `index.mjs` from the bundle folder and calls its `handler` export. */
export const BUNDLE_HANDLER = 'index.handler';

/** The absolute folder of one bundle. */
export function bundlePath(bundleDir: string, name: BundleName): string {
  return resolve(bundleDir, name);
}

/** One problem per missing bundle, naming the fix. */
export function missingBundles(bundleDir: string): string[] {
  return BUNDLES.filter((name) => !existsSync(join(bundlePath(bundleDir, name), 'index.mjs'))).map(
    (name) =>
      `the ${name} bundle ${join(bundleDir, name, 'index.mjs')} is missing: run npm run build first.`,
  );
}

/**
 * A digest of one bundle's code: it changes with every release whose bundle differs (the fence
 * bundle inlines the library text, so a new library always changes it).
 */
export function bundleDigest(bundleDir: string, name: BundleName): string {
  const code = readFileSync(join(bundlePath(bundleDir, name), 'index.mjs'));
  return createHash('sha256').update(code).digest('hex').slice(0, 16);
}
