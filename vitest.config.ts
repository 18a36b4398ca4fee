import { defineConfig, type Plugin } from 'vitest/config';

/** Lua scripts are imported as text, as esbuild's `text` loader does in the bundles. */
const luaAsText: Plugin = {
  name: 'lua-as-text',
  transform(code, id) {
    return id.endsWith('.lua')
      ? { code: `export default ${JSON.stringify(code)};`, map: null }
      : null;
  },
};

// Integration tests start real valkey-server processes; two cores share them, so files run
// in two forks and each test gets time for a server start. The timeouts are upper bounds for
// a machine other work also loads (CI next to a CPU hog), never a speed assertion: every wait
// inside a test is on a condition.
export default defineConfig({
  plugins: [luaAsText],
  test: {
    include: ['test/**/*.test.ts', 'module/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
