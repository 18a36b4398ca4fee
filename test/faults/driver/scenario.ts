/**
 * One fault scenario end to end: point the function containers at the servers, warm them up,
 * run the load with the fault, let the servers settle, audit the keyspace, publish the figures.
 */
import { handler } from '../../../functions/http/handler.js';
import { setLogSink } from '../../../functions/shared/log.js';
import { fixture } from '../../fixtures/http/events.js';
import { configureContainer, invoke } from '../../fixtures/http/invoke.js';
import { connectTo } from '../../support/emq.js';
import type { ClusterHandle, ServerHandle } from '../../support/servers.js';
import { type Audit, audit } from './audit.js';
import { type Figures, figuresOf, publish } from './figures.js';
import { type LoadOptions, type LoadResult, runLoad } from './load.js';
import { settings } from './settings.js';

export interface ScenarioOptions extends Omit<LoadOptions, 'requests'> {
  /** Names the scenario in the figures. Required. */
  readonly name: string;
  /** The servers the functions talk to. Required. */
  readonly target: ServerHandle | ClusterHandle;
  /** Logical requests. Default: EMQ_FAULTS_N, else the CI size. */
  readonly requests?: number;
  /** EMQ_* settings of the function containers (executor, timeouts). Default: none. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface ScenarioResult {
  readonly load: LoadResult;
  readonly audit: Audit;
  readonly figures: Figures;
}

export async function runScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  const { name, target, queues } = options;
  await configureContainer(target, options.env);
  // A warm container: its connection is open before the fault, as in a running deployment.
  const restore = setLogSink(() => {});
  const warm = await invoke(handler, fixture('v2-get', { queue: queues[0] ?? 'warm' })).finally(
    () => setLogSink(restore),
  );
  if (warm.response.statusCode !== 404) {
    throw new Error(`warm-up answered ${warm.response.statusCode}: ${warm.response.body}`);
  }
  const load = await runLoad({ ...options, requests: options.requests ?? settings.requests });
  if (target.kind === 'cluster') await target.waitForHealthy();
  const reader = await connectTo(target);
  const result = await audit(reader, queues, load.ledger);
  const figures = figuresOf(name, load, result);
  publish(figures);
  return { load, audit: result, figures };
}
