import { defineConfig } from 'vitest/config';

// Integration tests start real valkey-server processes; two cores share them, so files run
// in a few forks and each test gets time for a server start.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
