/**
 * Bundles every entry point with esbuild: ESM, Node 22, minified, with source maps. Lambda's
 * nodejs22.x runtime ships the AWS SDK v3, so it stays out of the bundles. Each file is
 * written beside its target and renamed over it, so a test importing a bundle never reads a
 * half-written one while another process rebuilds.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { build } from 'esbuild';

interface Entry {
  /** The source file. */
  readonly source: string;
  /** The output folder under dist/; the bundle is `<folder>/index.mjs`. */
  readonly folder: string;
}

const ENTRIES: readonly Entry[] = [
  { source: 'functions/http/handler.ts', folder: 'functions/http' },
  { source: 'functions/sqs/handler.ts', folder: 'functions/sqs' },
  { source: 'functions/fence/handler.ts', folder: 'functions/fence' },
  { source: 'cli/emq.ts', folder: 'cli/emq' },
  { source: 'scripts/start.ts', folder: 'scripts/start' },
];

// iovalkey and its dependencies are CommonJS and call require(); an ESM bundle needs one.
const requireShim =
  "import { createRequire as __emqCreateRequire } from 'node:module'; const require = __emqCreateRequire(import.meta.url);";

async function bundle(entry: Entry): Promise<void> {
  const result = await build({
    entryPoints: [entry.source],
    outfile: `dist/${entry.folder}/index.mjs`,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    minify: true,
    sourcemap: true,
    // A source's own #! line (the CLI's) stays first; esbuild keeps it above the banner.
    banner: { js: requireShim },
    // fauxqs, the local stack's SQS emulator (a devDependency), is imported at run time from
    // node_modules, and only with `npm start -- --sqs`: bundled, esbuild would hoist its
    // node:sqlite import to the top of the start bundle, and every start would print Node's
    // SQLite warning.
    external: ['@aws-sdk/*', 'fauxqs'],
    alias: { debug: './scripts/stubs/debug.ts' },
    loader: { '.lua': 'text' },
    write: false,
    logLevel: 'warning',
  });
  for (const file of result.outputFiles) {
    await mkdir(dirname(file.path), { recursive: true });
    const partial = `${file.path}.${process.pid}.partial`;
    await writeFile(partial, file.contents, { mode: 0o755 });
    await rename(partial, file.path);
  }
}

await Promise.all(ENTRIES.map(bundle));
console.log(`build: ${ENTRIES.length} bundles in dist/`);
