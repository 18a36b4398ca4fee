/**
 * Bundles the bench for plain Node: the core imports its Lua script as text, which only a
 * bundler (or vitest) understands. Same settings as scripts/build.ts, unminified, with BullMQ
 * and the AWS SDK left to node_modules. Then `node dist/bench/run.mjs` runs it.
 */
import { build } from 'esbuild';

await build({
  entryPoints: ['bench/run.ts'],
  outfile: 'dist/bench/run.mjs',
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  sourcemap: true,
  banner: {
    js: "import { createRequire as __emqCreateRequire } from 'node:module'; const require = __emqCreateRequire(import.meta.url);",
  },
  external: ['@aws-sdk/*', 'bullmq'],
  alias: { debug: './scripts/stubs/debug.ts' },
  loader: { '.lua': 'text' },
  logLevel: 'warning',
});
