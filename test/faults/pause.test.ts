// CLIENT PAUSE WRITE on a primary for longer than the command timeout, mid-load: the writes it
// holds time out, callers hear "retry", the held writes run when the pause ends, and the
// retries find them: every accepted request is in the keyspace once.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetContainer } from '../../functions/shared/connection.js';
import { clearEmqEnv } from '../fixtures/http/invoke.js';
import { type ClusterHandle, startCluster } from '../support/servers.js';
import { expectPromiseKept, NOTHING_LOST, PROMISE_TEXT } from './driver/expectations.js';
import { runScenario } from './driver/scenario.js';
import { SCENARIO_TIMEOUT_MS } from './driver/settings.js';
import { everyFaceHeardRetry } from './driver/target-faults.js';
import { installWire, primariesOf, queuesStriking } from './driver/topology.js';

const COMMAND_TIMEOUT_MS = 300;
const PAUSE_MS = 1_200;
/** CLIENT PAUSE's own end, should the scenario fail before it unpauses: far past its wait. */
const PAUSE_CAP_MS = 120_000;

let cluster: ClusterHandle;

beforeAll(async () => {
  cluster = await startCluster({ module: true });
  await installWire(cluster);
});

afterAll(async () => {
  await resetContainer();
  clearEmqEnv();
  await cluster?.stop();
});

describe.each(['native', 'function'] as const)('with the %s family', (family) => {
  it(
    `acks 0, no failover: ${PROMISE_TEXT['nothing-lost']} when a primary pauses writes past the command timeout; callers hear 503`,
    async () => {
      const [paused] = await primariesOf(cluster);
      if (paused === undefined) throw new Error('no primary');
      const queues = (await queuesStriking(cluster, paused)).all;
      const result = await runScenario({
        promise: NOTHING_LOST,
        name: `pause: CLIENT PAUSE WRITE ${PAUSE_MS} ms, command timeout ${COMMAND_TIMEOUT_MS} ms (${family})`,
        target: cluster,
        queues,
        env: { EMQ_EXECUTOR: family, EMQ_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS) },
        fault: async (inEffect, ledger) => {
          const admin = await paused.client();
          try {
            await admin.call('CLIENT', 'PAUSE', String(PAUSE_CAP_MS), 'WRITE');
            inEffect();
            // At least the pause's length, and until callers have heard "retry": a loaded
            // machine may send nothing into a pause of fixed length.
            await Promise.all([sleep(PAUSE_MS), everyFaceHeardRetry(ledger)]);
          } finally {
            await admin.call('CLIENT', 'UNPAUSE');
            admin.disconnect();
          }
        },
      });
      expectPromiseKept(result);
      expect(result.load.ledger.answers.get('http 503 EMQ_UNAVAILABLE') ?? 0).toBeGreaterThan(0);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
