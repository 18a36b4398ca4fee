// Failover under load on a 3 × 2 cluster: a primary hands over to its replica (CLUSTER
// FAILOVER) or is killed outright and its replica promoted, while API clients and SQS keep
// enqueueing. Callers see retryable answers, never hangs; nothing is doubled. A handover loses
// nothing under any settings: the heir takes over only once it has the whole replication
// stream. A kill loses nothing acknowledged with acks 1; with acks 0 what the killed primary
// acknowledged and had not replicated is gone, and counted.
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
import {
  handOver,
  installWire,
  primariesOf,
  queuesStriking,
  replicaOf,
  waitForRole,
} from './driver/topology.js';

let cluster: ClusterHandle;

beforeAll(async () => {
  cluster = await startCluster({ module: true, replicasPerPrimary: 1, nodeTimeoutMs: 1_500 });
  await installWire(cluster);
});

afterAll(async () => {
  await resetContainer();
  clearEmqEnv();
  await cluster?.stop();
});

// EMQ_ACK_REPLICAS=1: an acknowledgement means the replica holds the job too.
describe.each([
  ['native', '0'],
  ['function', '0'],
  ['native', '1'],
  ['function', '1'],
] as const)('with the %s family and EMQ_ACK_REPLICAS=%s', (family, acks) => {
  const env = {
    EMQ_EXECUTOR: family,
    EMQ_COMMAND_TIMEOUT_MS: '1000',
    EMQ_ACK_REPLICAS: acks,
    EMQ_ACK_TIMEOUT_MS: '500',
  };

  it(
    `acks ${acks}: ${PROMISE_TEXT['nothing-lost']} when a primary hands over with CLUSTER FAILOVER mid-load (the heir catches up first)`,
    async () => {
      const [victim] = await primariesOf(cluster);
      if (victim === undefined) throw new Error('no primary');
      const heir = await replicaOf(cluster, victim);
      const result = await runScenario({
        name: `failover: CLUSTER FAILOVER (${family}, acks ${acks})`,
        promise: NOTHING_LOST,
        target: cluster,
        queues: (await queuesStriking(cluster, victim)).all,
        env,
        fault: async (inEffect) => {
          await handOver(heir, inEffect);
          await waitForRole(victim, 'replica');
        },
      });
      expectPromiseKept(result);
      expect(await heir.role()).toBe('primary');
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    `acks ${acks}: ${PROMISE_TEXT[promotionKind(acks)]} when a primary is killed mid-load and its replica promoted`,
    async () => {
      const [victim] = await primariesOf(cluster);
      if (victim === undefined) throw new Error('no primary');
      const heir = await replicaOf(cluster, victim);
      const queues = await queuesStriking(cluster, victim);
      const result = await runScenario({
        name: `failover: SIGKILL a primary (${family}, acks ${acks})`,
        promise: throughPromotion(acks, queues.struck),
        target: cluster,
        queues: queues.all,
        env,
        fault: async (inEffect) => {
          await victim.kill('SIGKILL');
          inEffect();
          await waitForRole(heir, 'primary');
          // With acknowledgements on, the heir's shard confirms nothing until it has a
          // replica again: the killed node comes back as its replica within the fault.
          if (acks === '1') {
            await victim.restart();
            await cluster.waitForHealthy();
          }
        },
      });
      // The killed node comes back as the replica of its heir, for the next scenario.
      if (acks === '0') {
        await victim.restart();
        await cluster.waitForHealthy();
      }
      expectPromiseKept(result);
      expect(result.figures.faces.some((face) => face.retryableAnswers > 0)).toBe(true);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
