// The fault driver itself: a fault that fails ends its scenario with the fault's own error as
// soon as the requests in flight are answered, instead of the load retrying against servers
// the fault left broken until the test times out with no cause in its log.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { resetContainer } from '../../functions/shared/connection.js';
import { clearEmqEnv } from '../fixtures/http/invoke.js';
import { randomQueue, type ServerHandle, startStandalone } from '../support/servers.js';
import { NOTHING_LOST } from './driver/expectations.js';
import type { Ledger } from './driver/ledger.js';
import { runScenario } from './driver/scenario.js';
import { installWire } from './driver/topology.js';

let server: ServerHandle;

beforeAll(async () => {
  server = await startStandalone({ module: true });
  await installWire(server);
});

afterAll(async () => {
  await resetContainer();
  clearEmqEnv();
  if (server?.running === false) await server.restart();
  await server?.stop();
});

it('fails a scenario with its fault’s error, and stops sending, when the fault fails', async () => {
  let seen: Ledger | undefined;
  const outcome = runScenario({
    name: 'driver: a fault that fails',
    promise: NOTHING_LOST,
    target: server,
    queues: [randomQueue('abandon')],
    requests: 200,
    fault: async (inEffect, ledger) => {
      seen = ledger;
      // The server stays down: every later request could only be retried.
      await server.kill('SIGKILL');
      inEffect();
      throw new Error('the fault could not bring the server back');
    },
  });
  await expect(outcome).rejects.toThrow('the fault could not bring the server back');
  const settlements = new Set(seen?.requests.map((request) => request.settlement));
  // The load stopped: requests were left unsent or unanswered, none retried to exhaustion.
  expect(settlements.has('open')).toBe(true);
  expect(settlements.has('gave-up')).toBe(false);
});
