/**
 * Bundles every entry point with esbuild: ESM, Node 22, minified, with source maps. Lambda's
 * nodejs22.x runtime ships the AWS SDK v3, so it stays out of the bundles.
 */
import { rm } from 'node:fs/promises';
import { build } from 'esbuild';

/** [source, output folder under dist/]. Each bundle is `<folder>/index.mjs`. */
const ENTRIES: ReadonlyArray<readonly [string, string]> = [
  ['functions/http/handler.ts', 'functions/http'],
  ['functions/sqs/handler.ts', 'functions/sqs'],
  ['functions/fence/handler.ts', 'functions/fence'],
  ['cli/emq.ts', 'cli/emq'],
  ['scripts/start.ts', 'scripts/start'],
];

// iovalkey and its dependencies are CommonJS and call require(); an ESM bundle needs one.
const banner =
  "import { createRequire as __emqCreateRequire } from 'node:module'; const require = __emqCreateRequire(import.meta.url);";

await rm('dist', { recursive: true, force: true });
await Promise.all(
  ENTRIES.map(([source, folder]) =>
    build({
      entryPoints: [source],
      outfile: `dist/${folder}/index.mjs`,
      bundle: true,
      platform: 'node',
      target: 'node22',
      format: 'esm',
      minify: true,
      keepNames: true,
      sourcemap: true,
      banner: { js: banner },
      external: ['@aws-sdk/*'],
      loader: { '.lua': 'text' },
      metafile: false,
      logLevel: 'warning',
    }),
  ),
);
console.log(`build: ${ENTRIES.length} bundles in dist/`);
