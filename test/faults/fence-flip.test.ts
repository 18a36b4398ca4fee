// The wire identity changed on one primary mid-load, then restored: while it differs, the
// writes to that primary answer only "retry" (EMQWIRE, and the module's brief "changing" while
// it re-reads its cached copy); once restored, everything lands, once.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { resetContainer } from '../../functions/shared/connection.js';
import { slotOf, wireKey } from '../../src/keyspace/keyspace.js';
import { clearEmqEnv } from '../fixtures/http/invoke.js';
import { connectTo } from '../support/emq.js';
import { type ClusterHandle, type ServerHandle, startCluster } from '../support/servers.js';
import { expectPromiseKept, NOTHING_LOST, PROMISE_TEXT } from './driver/expectations.js';
import { runScenario } from './driver/scenario.js';
import { SCENARIO_TIMEOUT_MS } from './driver/settings.js';
import { installWire, primariesOf, queuesStriking } from './driver/topology.js';

const FLIPPED_MS = 600;

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

/** The primary whose slots hold `{emq}:version`: the one a plain SET reaches. */
async function fenceOwner(): Promise<ServerHandle> {
  const connection = await connectTo(cluster);
  const address = connection.nodeOf(slotOf(wireKey)).split(';')[0];
  const owner = (await primariesOf(cluster)).find(
    (node) => `${node.host}:${node.port}` === address,
  );
  if (owner === undefined) throw new Error('no primary owns the fence slot');
  return owner;
}

it(
  `acks 0, no failover: ${PROMISE_TEXT['nothing-lost']}; the flipped primary answers only "retry" (EMQWIRE) while its identity differs`,
  async () => {
    const flipped = await fenceOwner();
    const queues = (await queuesStriking(cluster, flipped)).all;
    const result = await runScenario({
      promise: NOTHING_LOST,
      name: `fence flip: {emq}:version '2' for ${FLIPPED_MS} ms on one primary (native)`,
      target: cluster,
      queues,
      env: { EMQ_EXECUTOR: 'native' },
      fault: async (inEffect) => {
        const admin = await flipped.client();
        try {
          await admin.set(wireKey, '2');
          inEffect();
          await new Promise((resolve) => setTimeout(resolve, FLIPPED_MS));
          await admin.set(wireKey, '1');
        } finally {
          admin.disconnect();
        }
      },
    });
    expectPromiseKept(result);
    const answers = [...result.load.ledger.answers.keys()];
    expect(answers).toContain('http 503 EMQWIRE');
    expect(answers.filter((answer) => !/^(http 503|sqs retry) EMQWIRE$/.test(answer))).toEqual([]);
  },
  SCENARIO_TIMEOUT_MS,
);
