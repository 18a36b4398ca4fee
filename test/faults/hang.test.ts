// A primary stopped with SIGSTOP for longer than the command timeout, then resumed, mid-load:
// callers hear "retry" instead of hanging, and once it runs again every accepted request is in
// the keyspace once (it kept its memory). Stopped past the cluster's node timeout, its replica
// takes over while it sleeps, and what it still held when it woke is not counted twice. What
// it acknowledged and had not replicated is lost with acks 0 (counted), never with acks 1.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetContainer } from '../../functions/shared/connection.js';
import { clearEmqEnv } from '../fixtures/http/invoke.js';
import { type ClusterHandle, startCluster } from '../support/servers.js';
import {
  expectPromiseKept,
  NOTHING_LOST,
  PROMISE_TEXT,
  promotionKind,
  throughPromotion,
} from './driver/expectations.js';
import { runScenario } from './driver/scenario.js';
import { SCENARIO_TIMEOUT_MS } from './driver/settings.js';
import { everyFaceHeardRetry } from './driver/target-faults.js';
import {
  installWire,
  primariesOf,
  queuesStriking,
  replicaOf,
  waitForRole,
} from './driver/topology.js';

const COMMAND_TIMEOUT_MS = 300;
const NODE_TIMEOUT_MS = 3_000;

let cluster: ClusterHandle;

beforeAll(async () => {
  cluster = await startCluster({
    module: true,
    replicasPerPrimary: 1,
    nodeTimeoutMs: NODE_TIMEOUT_MS,
  });
  await installWire(cluster);
});

afterAll(async () => {
  await resetContainer();
  clearEmqEnv();
  await cluster?.stop();
});

const env = { EMQ_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS) };

describe('a primary stopped with SIGSTOP', () => {
  it(
    `acks 0, stopped 1 s, no promotion: ${PROMISE_TEXT['nothing-lost']}; callers hear 503 while it is stopped`,
    async () => {
      const [stopped] = await primariesOf(cluster);
      if (stopped === undefined) throw new Error('no primary');
      const stopMs = 1_000;
      const result = await runScenario({
        name: `hang: SIGSTOP ${stopMs} ms, command timeout ${COMMAND_TIMEOUT_MS} ms, acks 0`,
        promise: NOTHING_LOST,
        target: cluster,
        queues: (await queuesStriking(cluster, stopped)).all,
        env,
        fault: async (inEffect, ledger) => {
          await stopped.kill('SIGSTOP');
          inEffect();
          try {
            // At least the stop's length, and until callers have heard "retry": a loaded
            // machine may send nothing into a stop of fixed length.
            await Promise.all([sleep(stopMs), everyFaceHeardRetry(ledger)]);
          } finally {
            await stopped.kill('SIGCONT');
          }
        },
      });
      expectPromiseKept(result);
      expect(result.load.ledger.answers.get('http 503 EMQ_UNAVAILABLE') ?? 0).toBeGreaterThan(0);
      expect(await stopped.role()).toBe('primary');
    },
    SCENARIO_TIMEOUT_MS,
  );

  // EMQ_ACK_REPLICAS=1: an acknowledgement means the replica holds the job, so nothing
  // acknowledged by the stopped primary can be missing from its heir. With 0, what the stopped
  // primary acknowledged and its replica had not received yet is gone after the promotion: the
  // scenario counts it (what turning acknowledgements off costs) and asserts the rest.
  describe.each(['0', '1'] as const)('with EMQ_ACK_REPLICAS=%s', (acks) => {
    it(
      `acks ${acks}: ${PROMISE_TEXT[promotionKind(acks)]} when its replica takes over while it is stopped`,
      async () => {
        const [stopped] = await primariesOf(cluster);
        if (stopped === undefined) throw new Error('no primary');
        const heir = await replicaOf(cluster, stopped);
        const queues = await queuesStriking(cluster, stopped);
        const result = await runScenario({
          name: `hang: SIGSTOP past the node timeout (${NODE_TIMEOUT_MS} ms), replica promoted, acks ${acks}`,
          promise: throughPromotion(acks, queues.struck),
          target: cluster,
          queues: queues.all,
          // WAIT's budget stays inside the command timeout, so a missing confirmation is an
          // EMQ_UNCONFIRMED answer, not a client timeout.
          env: { ...env, EMQ_ACK_REPLICAS: acks, EMQ_ACK_TIMEOUT_MS: '200' },
          fault: async (inEffect) => {
            await stopped.kill('SIGSTOP');
            inEffect();
            try {
              await waitForRole(heir, 'primary', 30_000);
            } finally {
              await stopped.kill('SIGCONT');
            }
            await waitForRole(stopped, 'replica');
          },
        });
        expectPromiseKept(result);
        expect(await heir.role()).toBe('primary');
      },
      SCENARIO_TIMEOUT_MS,
    );
  });
});
