// Faults where AWS runs it: the fault driver's load (HTTP and SQS through the real handlers)
// against a Valkey shaped as each service the stack deploys to (test/support/targets), with
// what the synthesized stack deploys: its users, its installer, its function environments.
// Each scenario ends with nothing lost, nothing doubled, and every command the product sent
// (installer included) one the target supports.
//
// - elasticache (2 shards x 1 replica): a primary killed mid-load, its replica promoted. The
//   default stack deploys durability=sync with EMQ_ACK_REPLICAS=0: there an acknowledgement
//   rests on the Multi-AZ transaction log, which holds every acknowledged write through a
//   primary's loss. A local valkey-server has no such log, so with the sync stack's settings a
//   killed primary can lose what it acknowledged and its replica had not received yet, which
//   says nothing about the service. The scenario therefore runs the stack synthesized with
//   durability=off, whose functions get EMQ_ACK_REPLICAS=1 (WAIT on the replica); its topology
//   and parameter group are the default's (besides EMQ_ACK_REPLICAS, durability changes only
//   the node type and the log).
//   The sync variant can only be tested against the service itself. Who promotes: ElastiCache's
//   control plane. Two shards cannot elect a replica (a failover needs the votes of most
//   primaries, and one of the two is dead), so once the replica sees its primary failing the
//   harness does what the service does: CLUSTER FAILOVER TAKEOVER.
// - selfmanaged (3 x 1, the module, EMQ_ACK_REPLICAS=1 as deployed): the same fault; the
//   cluster elects the replica itself, as on the stack's EC2 nodes.
// - serverless (one node, no replicas: the service replicates inside itself): the node stopped
//   (SIGSTOP) until every face has heard "retry" (so past the command timeout), then resumed.
// - memorydb (cache=existing): writes paused (CLIENT PAUSE WRITE, the harness's own access)
//   until every face has heard "retry", then unpaused.
// Every fault is held on conditions (a role taken, answers heard, health), never on sleeps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetContainer } from '../../functions/shared/connection.js';
import type { CacheKind } from '../../infra/cache/registry.js';
import type { EchoMqDeployment } from '../../infra/deployment/deployment.js';
import { clearEmqEnv } from '../fixtures/http/invoke.js';
import {
  assertCommandsSupported,
  HARNESS_USER,
  type ProfileName,
  type Target,
  type TargetNode,
} from '../support/targets/index.js';
import { type DeployedTarget, startDeployed } from './driver/deployed-target.js';
import { expectPromiseKept, NOTHING_LOST, PROMISE_TEXT } from './driver/expectations.js';
import type { LoadFault } from './driver/load.js';
import { runScenario, type ScenarioResult } from './driver/scenario.js';
import { SCENARIO_TIMEOUT_MS } from './driver/settings.js';
import {
  everyFaceHeardRetry,
  fenceOwner,
  heirOf,
  type Promotion,
  promoted,
  queuesFor,
} from './driver/target-faults.js';

/** CLIENT PAUSE's own end, should the scenario fail before it unpauses: far past its wait. */
const PAUSE_CAP_MS = 120_000;

/** Starts the profile with the kind's deployed settings for the describe block; stops it after. */
function deployedFor(
  kind: CacheKind,
  profile: ProfileName,
  variant?: EchoMqDeployment,
): () => DeployedTarget {
  let started: DeployedTarget | undefined;
  const saved = { ...process.env };
  beforeAll(async () => {
    started = await startDeployed(kind, profile, variant);
  });
  afterAll(async () => {
    await resetContainer();
    clearEmqEnv();
    // The deployed environment brought the SDK's stand-in endpoint and credentials too.
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
    await started?.stop();
  });
  return () => {
    if (started === undefined) throw new Error(`${profile} did not start`);
    return started;
  };
}

/** How often the product (anyone but the harness) sent `command` since the record began. */
function sent(target: Target, command: string): number {
  return target.commands
    .entries()
    .filter((record) => record.user !== HARNESS_USER && record.command === command)
    .reduce((total, record) => total + record.count, 0);
}

function expectRetryOnEveryFace(result: ScenarioResult): void {
  expect(result.figures.faces.map((face) => [face.face, face.retryableAnswers > 0])).toEqual([
    ['http', true],
    ['sqs', true],
  ]);
}

/**
 * SIGKILL the victim, wait for its heir to be primary (promoted as `promotion` says) and for
 * every face to hear "retry" (the dead primary's slots, then an heir that confirms nothing
 * without a replica), then bring the victim back: it rejoins as the heir's replica, and WAIT is
 * answered again.
 */
function killAndPromote(deployed: DeployedTarget, victim: Victim, promotion: Promotion): LoadFault {
  return async (inEffect, ledger) => {
    await victim.primary.server.kill('SIGKILL');
    inEffect();
    try {
      await promoted(deployed.target, victim.heir, victim.primary, promotion);
      await everyFaceHeardRetry(ledger);
    } finally {
      // Also when the promotion failed: the load then ends and the failure is reported.
      await victim.primary.server.restart();
      await deployed.target.waitForHealthy();
    }
  };
}

interface Victim {
  readonly primary: TargetNode;
  readonly heir: TargetNode;
}

describe.each([
  {
    kind: 'elasticache',
    profile: 'elasticache',
    variant: { cache: { kind: 'elasticache', durability: 'off' } },
    label: 'durability=off',
    promotion: 'control-plane',
  },
  {
    kind: 'selfmanaged',
    profile: 'selfmanaged',
    variant: undefined,
    label: 'as deployed',
    promotion: 'election',
  },
] as const)(
  'cache=$kind ($label) on a $profile-shaped target',
  ({ kind, profile, variant, promotion }) => {
    const get = deployedFor(kind, profile, variant);

    it(
      `acks 1: ${PROMISE_TEXT['nothing-lost']} when a primary is killed mid-load and its replica promoted`,
      async () => {
        const deployed = get();
        const { target, servers } = deployed;
        // The premise: every acknowledgement waits for the replica.
        expect(servers.env.EMQ_ACK_REPLICAS).toBe('1');
        const connection = await deployed.harness();
        const primary = await fenceOwner(target, connection);
        const victim = { primary, heir: await heirOf(target, primary) };
        const result = await runScenario({
          promise: NOTHING_LOST,
          name: `profiles: ${kind} (${profile}), SIGKILL the wire identity's primary, ${promotion} promotes, acks ${servers.env.EMQ_ACK_REPLICAS}`,
          deployed: servers,
          queues: await queuesFor(target, connection, primary),
          fault: killAndPromote(deployed, victim, promotion),
        });
        expectPromiseKept(result);
        expectRetryOnEveryFace(result);
        expect(await victim.heir.server.role()).toBe('primary');
        expect(await victim.primary.server.role()).toBe('replica');
        // Every acknowledgement waited for the replica: the functions sent WAIT.
        expect(sent(target, 'wait')).toBeGreaterThan(0);
        assertCommandsSupported(target);
      },
      SCENARIO_TIMEOUT_MS,
    );
  },
);

describe('cache=serverless on a serverless-shaped target', () => {
  const get = deployedFor('serverless', 'serverless');

  it(
    `no replica, no failover: ${PROMISE_TEXT['nothing-lost']}; every face hears "retry" while its node is stopped past the command timeout`,
    async () => {
      const deployed = get();
      const { target, servers } = deployed;
      const [node] = target.nodes;
      if (node === undefined || target.nodes.length !== 1) throw new Error('one node expected');
      const connection = await deployed.harness();
      let heldMs = 0;
      const result = await runScenario({
        promise: NOTHING_LOST,
        name: `profiles: serverless, SIGSTOP the node, command timeout ${servers.env.EMQ_COMMAND_TIMEOUT_MS} ms`,
        deployed: servers,
        queues: await queuesFor(target, connection, node),
        fault: async (inEffect, ledger) => {
          await node.server.kill('SIGSTOP');
          const stopped = performance.now();
          inEffect();
          try {
            await everyFaceHeardRetry(ledger);
          } finally {
            heldMs = performance.now() - stopped;
            await node.server.kill('SIGCONT');
          }
        },
      });
      expectPromiseKept(result);
      expectRetryOnEveryFace(result);
      expect(heldMs).toBeGreaterThanOrEqual(Number(servers.env.EMQ_COMMAND_TIMEOUT_MS));
      assertCommandsSupported(target);
    },
    SCENARIO_TIMEOUT_MS,
  );
});

describe('cache=existing on a memorydb-shaped target', () => {
  const get = deployedFor('existing', 'memorydb');

  it(
    `no failover: ${PROMISE_TEXT['nothing-lost']}; every face hears "retry" while writes are paused past the command timeout`,
    async () => {
      const deployed = get();
      const { target, servers } = deployed;
      const [primary, ...others] = await target.primaries();
      if (primary === undefined || others.length > 0) throw new Error('one primary expected');
      const connection = await deployed.harness();
      let heldMs = 0;
      const result = await runScenario({
        promise: NOTHING_LOST,
        name: `profiles: existing (memorydb), CLIENT PAUSE WRITE, command timeout ${servers.env.EMQ_COMMAND_TIMEOUT_MS} ms`,
        deployed: servers,
        queues: await queuesFor(target, connection, primary),
        fault: async (inEffect, ledger) => {
          await target.call(primary, 'CLIENT', 'PAUSE', String(PAUSE_CAP_MS), 'WRITE');
          const paused = performance.now();
          inEffect();
          try {
            await everyFaceHeardRetry(ledger);
          } finally {
            heldMs = performance.now() - paused;
            await target.call(primary, 'CLIENT', 'UNPAUSE');
          }
        },
      });
      expectPromiseKept(result);
      expectRetryOnEveryFace(result);
      expect(heldMs).toBeGreaterThanOrEqual(Number(servers.env.EMQ_COMMAND_TIMEOUT_MS));
      assertCommandsSupported(target);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
