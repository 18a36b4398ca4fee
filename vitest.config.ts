import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { configDefaults, defineConfig, type Plugin } from 'vitest/config';

/** Lua scripts are imported as text, as esbuild's `text` loader does in the bundles. */
const luaAsText: Plugin = {
  name: 'lua-as-text',
  transform(code, id) {
    return id.endsWith('.lua')
      ? { code: `export default ${JSON.stringify(code)};`, map: null }
      : null;
  },
};

/**
 * The major version of the valkey-server the suite runs (EMQ_VALKEY_BIN's, else PATH's): files
 * named `*.v9.test.ts` test what only Valkey 9 has (atomic slot migration), so they run where
 * the server is 9 or newer and are not collected on 8.x. Each such file still fails on its own
 * if it is ever run against an older server. 0 when no server is found (global setup says so).
 */
function valkeyMajor(): number {
  const bin = process.env.EMQ_VALKEY_BIN;
  try {
    const version = execFileSync(
      bin ? join(bin, 'valkey-server') : 'valkey-server',
      ['--version'],
      {
        encoding: 'utf8',
      },
    );
    return Number(/\bv=(\d+)\./.exec(version)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

// Integration tests start real valkey-server processes; two cores share them, so files run
// in two forks and each test gets time for a server start. The timeouts are upper bounds for
// a machine other work also loads (CI next to a CPU hog), never a speed assertion: every wait
// inside a test is on a condition.
export default defineConfig({
  plugins: [luaAsText],
  test: {
    include: ['test/**/*.test.ts', 'module/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(valkeyMajor() >= 9 ? [] : ['**/*.v9.test.ts'])],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
