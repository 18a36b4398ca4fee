// A standalone server with AOF fsync on every write, killed with SIGKILL mid-load and started
// again on the same data: every job a caller was told about is there, exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetContainer } from '../../functions/shared/connection.js';
import { clearEmqEnv } from '../fixtures/http/invoke.js';
import { randomQueue, type ServerHandle, startStandalone } from '../support/servers.js';
import { expectPromiseKept, NOTHING_LOST, PROMISE_TEXT } from './driver/expectations.js';
import { runScenario } from './driver/scenario.js';
import { SCENARIO_TIMEOUT_MS } from './driver/settings.js';
import { installWire } from './driver/topology.js';

const DOWN_MS = 300;

let server: ServerHandle;

beforeAll(async () => {
  server = await startStandalone({
    module: true,
    extraArgs: ['--appendonly', 'yes', '--appendfsync', 'always'],
  });
  await installWire(server);
});

afterAll(async () => {
  await resetContainer();
  clearEmqEnv();
  await server?.stop();
});

describe.each(['native', 'function'] as const)('with the %s family', (family) => {
  it(
    `AOF appendfsync always: ${PROMISE_TEXT['nothing-lost']} across a SIGKILL and restart`,
    async () => {
      const result = await runScenario({
        promise: NOTHING_LOST,
        name: `restart: SIGKILL, down ${DOWN_MS} ms, AOF appendfsync always (${family})`,
        target: server,
        queues: [randomQueue('aof'), randomQueue('aof'), randomQueue('aof')],
        env: { EMQ_EXECUTOR: family, EMQ_CONNECT_TIMEOUT_MS: '500' },
        fault: async (inEffect) => {
          await server.kill('SIGKILL');
          inEffect();
          await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
          await server.restart();
        },
      });
      expectPromiseKept(result);
      expect(result.figures.faces.some((face) => face.retryableAnswers > 0)).toBe(true);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
