/**
 * Builds dist/ with esbuild. The functions, the CLI and the local stack are bundles: ESM, Node
 * 22, minified, without source maps: no function runs with --enable-source-maps, so a map
 * would only triple each Lambda asset and the tarball. What each bundle was made from is written
 * apart, to dist/meta/ (esbuild's metafile), which no asset and no tarball holds. Lambda's nodejs22.x runtime ships the
 * AWS SDK v3, so it stays out of them. Each bundle file is written beside its target and renamed over it, so a
 * test importing a bundle never reads a half-written one while another process rebuilds.
 *
 * The package's public entries (docs/architecture.md, "The public API": the core, the constructs,
 * the client) are built together as plain, unminified ESM that imports its npm dependencies from
 * node_modules, with the code they share in one chunk (one id minter, one `EmqError` class per
 * process), and the Lua library inlined as text, so the installed package needs no loader.
 * `--types` also writes their declarations to dist/types (tsconfig.build.json), which only the
 * tarball needs.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { build, type OutputFile } from 'esbuild';
import { FACES } from '../infra/faces/registry.js';
import { linkForNpx } from './npx-link.js';

interface Entry {
  /** The source file. */
  readonly source: string;
  /** The output folder under dist/; the bundle is `<folder>/index.mjs`. */
  readonly folder: string;
}

/** Every face's handler (infra/faces/registry.ts), then the installer's and the rotation's. */
const ENTRIES: readonly Entry[] = [
  ...[...FACES.map((face) => face.name), 'fence'].map((name) => ({
    source: `functions/${name}/handler.ts`,
    folder: `functions/${name}`,
  })),
  { source: 'functions/rotate/handler.ts', folder: 'functions/rotate' },
  { source: 'cli/emq.ts', folder: 'cli/emq' },
  { source: 'scripts/start.ts', folder: 'scripts/start' },
];

// iovalkey and its dependencies are CommonJS and call require(); an ESM bundle needs one.
const requireShim =
  "import { createRequire as __emqCreateRequire } from 'node:module'; const require = __emqCreateRequire(import.meta.url);";

/** The public entries: `dist/<key>.mjs` from each source. */
const PUBLIC_ENTRIES: Readonly<Record<string, string>> = {
  'core/index': 'src/index.ts',
  'cdk/index': 'infra/index.ts',
  'client/index': 'client/index.ts',
};
/** The folders the public entries and their shared chunks fill, emptied before each build. */
const PUBLIC_FOLDERS = [...Object.keys(PUBLIC_ENTRIES).map(dirname), 'chunks'];

async function bundle(entry: Entry): Promise<void> {
  const result = await build({
    entryPoints: [entry.source],
    outfile: `dist/${entry.folder}/index.mjs`,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    minify: true,
    sourcemap: false,
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
    metafile: true,
    logLevel: 'warning',
  });
  await writeAtomically(result.outputFiles);
  await mkdir('dist/meta', { recursive: true });
  await writeFile(metafilePath(entry.folder), JSON.stringify(result.metafile));
  // An earlier build's map would otherwise stay in the folder the construct uploads whole.
  await rm(`dist/${entry.folder}/index.mjs.map`, { force: true });
}

/** Where a bundle's metafile goes: `dist/meta/<folder, / as ->.json` (test/integration/client-bundles.test.ts reads it). */
function metafilePath(folder: string): string {
  return `dist/meta/${folder.replaceAll('/', '-')}.json`;
}

async function writeAtomically(files: readonly OutputFile[]): Promise<void> {
  for (const file of files) {
    await mkdir(dirname(file.path), { recursive: true });
    const partial = `${file.path}.${process.pid}.partial`;
    await writeFile(partial, file.contents, { mode: 0o755 });
    await rename(partial, file.path);
  }
}

async function buildPublicEntries(): Promise<void> {
  const result = await build({
    entryPoints: PUBLIC_ENTRIES,
    outdir: 'dist',
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    packages: 'external',
    platform: 'node',
    target: 'node22',
    format: 'esm',
    loader: { '.lua': 'text' },
    write: false,
    logLevel: 'warning',
  });
  // Chunk names change with their content: an earlier build's chunks would ship beside these.
  await Promise.all(
    PUBLIC_FOLDERS.map((folder) => rm(`dist/${folder}`, { recursive: true, force: true })),
  );
  await writeAtomically(result.outputFiles);
}

async function buildTypes(): Promise<void> {
  await rm('dist/types', { recursive: true, force: true });
  execFileSync('tsc', ['-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}

await Promise.all([...ENTRIES.map(bundle), buildPublicEntries()]);
const unlinked = linkForNpx(process.cwd());
if (unlinked !== undefined) console.warn(`build: npx emq is not linked yet: ${unlinked}`);
console.log(
  `build: ${ENTRIES.length} bundles and ${Object.keys(PUBLIC_ENTRIES).length} package entries in dist/`,
);
if (process.argv.includes('--types')) {
  await buildTypes();
  console.log('build: declarations in dist/types/');
}
