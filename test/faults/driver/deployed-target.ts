/**
 * A target profile (test/support/targets) running what the stack deploys for a cache kind, made
 * ready for fault scenarios: started with the deployed users, installed by the deployed
 * installer (its own environment, user and secret), every replica caught up with what the
 * installer wrote (a failover promotes one), and the function containers' environment as
 * synthesized. The audit and the scenarios' own probes go through the proxies as the harness's
 * user, which the command assertion leaves out: what it checks is what the product sent.
 */
import { onFenceEvent } from '../../../functions/fence/on-event.js';
import { setLogSink } from '../../../functions/shared/log.js';
import type { CacheKind } from '../../../infra/cache/registry.js';
import type { EchoMqDeployment } from '../../../infra/deployment/deployment.js';
import { type Connection, connect } from '../../../src/index.js';
import { createEvent } from '../../infra/support/cfn-events.js';
import {
  type Deployed,
  deployed,
  deployedUsers,
  environmentFor,
  HARNESS_USER,
  type ProfileName,
  SecretsStandIn,
  startTarget,
  type Target,
  type TargetUser,
} from '../../support/targets/index.js';
import { EXISTING_SECRET_ARN } from '../../support/targets/templates.js';
import { waitFor } from '../../support/wait.js';
import type { DeployedServers } from './scenario.js';

/** An existing endpoint has no users of the stack's: its operator gives one, with one secret. */
const OPERATOR: TargetUser = { name: 'emq-operator', rules: 'on resetchannels ~* +@all' };
/** The SQS function's DLQ (a Ref in the template); no record of these scenarios may reach it. */
const DLQ = 'https://sqs.eu-west-1.amazonaws.com/123456789012/emq-dead-letters';
const CAUGHT_UP_TIMEOUT_MS = 60_000;

export interface DeployedTarget {
  readonly settings: Deployed;
  readonly target: Target;
  /** What runScenario takes: the containers' environment, the reader, the settling. */
  readonly servers: DeployedServers;
  /** A harness connection through the proxies (closed on stop), e.g. to place queues. */
  harness(): Promise<Connection>;
  stop(): Promise<void>;
}

/**
 * Starts `profile` with what the stack of `kind` deploys (`variant`: a stack synthesized with
 * other settings) and installs it. The command record starts empty before the installer runs,
 * so a scenario's assertion covers the installer's commands as well as the functions'.
 */
export async function startDeployed(
  kind: CacheKind,
  profile: ProfileName,
  variant?: EchoMqDeployment,
): Promise<DeployedTarget> {
  const settings = deployed(kind, variant);
  const existing = kind === 'existing';
  const target = await startTarget(profile, {
    users: existing ? [OPERATOR] : deployedUsers(settings),
  });
  const opened = new Set<Connection>();
  const secrets = new SecretsStandIn(settings, target, existing ? operatorSecret(target) : {});
  const stop = async (): Promise<void> => {
    await Promise.allSettled([...opened].map((connection) => connection.close()));
    await secrets.stop();
    await target.stop();
  };
  try {
    const endpoint = await secrets.listen();
    target.commands.reset();
    await install(settings, target, secrets);
    await target.waitForHealthy();
    await replicasCaughtUp(target);
    const harness = async (): Promise<Connection> => {
      const connection = await connect({
        ...target.connectOptions(),
        username: HARNESS_USER,
        password: target.admin.password,
        // A reader, not a host: it neither loads scripts nor judges the fence.
        checkFence: false,
      });
      opened.add(connection);
      return connection;
    };
    return {
      settings,
      target,
      servers: {
        env: { ...containerEnvironment(settings, target), ...endpoint },
        reader: harness,
        settle: () => target.waitForHealthy(),
      },
      harness,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function operatorSecret(
  target: Target,
): Record<string, { readonly username: string; readonly password: string }> {
  const password = target.passwords.get(OPERATOR.name);
  if (password === undefined) throw new Error(`${target.name} has no ${OPERATOR.name}`);
  return { [EXISTING_SECRET_ARN]: { username: OPERATOR.name, password } };
}

/** The deploy-time installer, its environment and its own user's secret as synthesized. */
async function install(settings: Deployed, target: Target, secrets: SecretsStandIn) {
  const { env } = environmentFor(settings, 'fence', target);
  const restore = setLogSink(() => {});
  try {
    // No retries: a target that is not ready for the installer is a failure to see.
    await onFenceEvent(createEvent(env.EMQ_WIRE ?? '1'), {
      env,
      secrets: secrets.client,
      retryForMs: 0,
    });
  } finally {
    setLogSink(restore);
  }
}

/**
 * The HTTP and SQS functions' environments as one: the driver runs both faces in this process,
 * over one container connection, so they must agree on every setting they share (they do as
 * synthesized; the SQS function adds its default queue and DLQ).
 */
function containerEnvironment(settings: Deployed, target: Target): Record<string, string> {
  const http = environmentFor(settings, 'http', target).env;
  const sqs = environmentFor(settings, 'sqs', target, { dlqUrl: DLQ }).env;
  const differ = Object.keys(http).filter((name) => name in sqs && sqs[name] !== http[name]);
  if (differ.length > 0) {
    throw new Error(`the HTTP and SQS functions are deployed with other ${differ.join(', ')}`);
  }
  return { ...http, ...sqs };
}

/**
 * Every replica has acknowledged its primary's whole stream, read after the install: what the
 * installer wrote (the fence, the library) is on the node a failover promotes.
 */
async function replicasCaughtUp(target: Target): Promise<void> {
  const primaries = await target.primaries();
  const offsets = await Promise.all(
    primaries.map(async (node) => Number((await node.server.probe((c) => c.role()))[1])),
  );
  await waitFor(
    'every replica to hold what the installer wrote',
    CAUGHT_UP_TIMEOUT_MS,
    async () => {
      for (const [at, node] of primaries.entries()) {
        const [, , replicas] = await node.server.probe((c) => c.role());
        if (!Array.isArray(replicas)) return `${node.url} answered ROLE without replicas`;
        const behind = replicas.filter(
          (entry) => Number((entry as unknown[])[2]) < (offsets[at] as number),
        );
        if (behind.length > 0) return `${behind.length} replica(s) of ${node.url} behind`;
      }
      return undefined;
    },
  );
}
