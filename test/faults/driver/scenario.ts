/**
 * One fault scenario end to end: point the function containers at the servers, warm them up,
 * run the load with the fault, let the servers settle, audit the keyspace, publish the figures.
 *
 * The servers are either harness servers (a ServerHandle or ClusterHandle, the containers
 * given their URLs and a few EMQ_* settings) or a deployed target (the containers given the
 * whole environment the stack deploys, and the harness's own reader for the audit): the same
 * load, the same audit, the same figures either way.
 */
import { handler } from '../../../functions/http/handler.js';
import { resetContainer } from '../../../functions/shared/connection.js';
import { setLogSink } from '../../../functions/shared/log.js';
import type { Connection } from '../../../src/index.js';
import { fixture } from '../../fixtures/http/events.js';
import { clearEmqEnv, configureContainer, invoke } from '../../fixtures/http/invoke.js';
import { connectTo } from '../../support/emq.js';
import type { ClusterHandle, ServerHandle } from '../../support/servers.js';
import { type Audit, audit } from './audit.js';
import type { Promised } from './expectations.js';
import { type Figures, figuresOf, publish } from './figures.js';
import { type LoadOptions, type LoadResult, runLoad } from './load.js';
import { settings } from './settings.js';

/** A target the functions reach with their deployed settings (faults/driver/deployed-target.ts). */
export interface DeployedServers {
  /** The containers' whole environment: EMQ_* as deployed, and the SDK's stand-in endpoints. */
  readonly env: Readonly<Record<string, string>>;
  /**
   * The connection the audit reads through, opened once the servers have settled: one opened
   * before a failover may still name the dead primary. It must not count as the product's
   * traffic (the harness's own user).
   */
  readonly reader: () => Promise<Connection>;
  /** Resolves once the servers are whole again (a cluster healthy) after the fault. */
  readonly settle: () => Promise<void>;
}

interface CommonOptions extends Omit<LoadOptions, 'requests'> {
  /** Names the scenario in the figures. Required. */
  readonly name: string;
  /** What the scenario's settings promise: what its figures name and its test asserts. Required. */
  readonly promise: Promised;
  /** Logical requests. Default: EMQ_FAULTS_N, else the CI size. */
  readonly requests?: number;
}

export interface HarnessScenarioOptions extends CommonOptions {
  /** The servers the functions talk to. Required. */
  readonly target: ServerHandle | ClusterHandle;
  /** EMQ_* settings of the function containers (family, timeouts). Default: none. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface DeployedScenarioOptions extends CommonOptions {
  readonly deployed: DeployedServers;
}

export type ScenarioOptions = HarnessScenarioOptions | DeployedScenarioOptions;

export interface ScenarioResult {
  readonly load: LoadResult;
  readonly audit: Audit;
  readonly figures: Figures;
  readonly promise: Promised;
}

/** What runScenario needs of either kind of servers. */
interface Servers {
  readonly configure: () => Promise<void>;
  readonly settle: () => Promise<void>;
  readonly reader: () => Promise<Connection>;
}

export async function runScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  const { name, queues, promise } = options;
  const servers = 'deployed' in options ? deployedServers(options.deployed) : harness(options);
  await servers.configure();
  // A warm container: its connection is open before the fault, as in a running deployment.
  const restore = setLogSink(() => {});
  const warm = await invoke(handler, fixture('v2-get', { queue: queues[0] ?? 'warm' })).finally(
    () => setLogSink(restore),
  );
  if (warm.response.statusCode !== 404) {
    throw new Error(`warm-up answered ${warm.response.statusCode}: ${warm.response.body}`);
  }
  const load = await runLoad({ ...options, requests: options.requests ?? settings.requests });
  await servers.settle();
  const reader = await servers.reader();
  const result = await audit(reader, queues, load.ledger);
  const figures = figuresOf(name, promise, load, result);
  publish(figures);
  return { load, audit: result, figures, promise };
}

/** Harness servers: the containers get their URLs and the given settings. */
function harness({ target, env }: HarnessScenarioOptions): Servers {
  return {
    configure: () => configureContainer(target, env),
    settle: async () => {
      if (target.kind === 'cluster') await target.waitForHealthy();
    },
    reader: () => connectTo(target),
  };
}

/** A deployed target: the containers get the deployed environment and nothing else. */
function deployedServers({ env, settle, reader }: DeployedServers): Servers {
  return {
    configure: async () => {
      await resetContainer();
      clearEmqEnv();
      Object.assign(process.env, env);
    },
    settle,
    reader,
  };
}
