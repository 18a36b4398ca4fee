/**
 * The fence installer's answer to a CloudFormation custom-resource event (SPEC §6): Create and
 * Update install the wire identity on every primary with the same install the CLI uses;
 * Delete leaves the fence alone (other stacks and hosts may rely on it). Installing is
 * idempotent, so CloudFormation may send the same event twice.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import {
  type Connection,
  connect,
  EmqError,
  type Env,
  FenceError,
  install,
  loadConfig,
} from '../../src/index.js';
import { errorFields, log } from '../shared/log.js';
import { openCredentials } from '../shared/open-credentials.js';

/** What the CDK provider framework expects back from onEvent. */
export interface FenceResult {
  readonly PhysicalResourceId: string;
  readonly Data?: { readonly Wire: string; readonly Nodes: number };
}

export interface FenceEventOptions {
  /** Where the EMQ_* settings come from. Default `process.env`. */
  readonly env?: Env;
  /** Secrets Manager client for EMQ_SECRET_ARN. Default: a client for the function's region. */
  readonly secrets?: Pick<SecretsManagerClient, 'send'>;
  /** Keep retrying a retryable failure (a cluster still coming up) this long. Default 240000 ms. */
  readonly retryForMs?: number;
  /** Pause before retry number `attempt` (1-based). Default 1 s doubling to at most 10 s. */
  readonly backoffMs?: (attempt: number) => number;
}

/** One fence resource per stack: its id never changes, so an Update never triggers a Delete. */
export const FENCE_PHYSICAL_ID = 'emq-fence';

export async function onFenceEvent(
  event: CloudFormationCustomResourceEvent,
  options: FenceEventOptions = {},
): Promise<FenceResult> {
  if (event.RequestType === 'Delete') {
    log('info', 'fence left in place', { request: 'Delete' });
    return { PhysicalResourceId: event.PhysicalResourceId };
  }
  const config = loadConfig(options.env ?? process.env);
  const declared: unknown = event.ResourceProperties.Wire;
  const wire = typeof declared === 'string' && declared !== '' ? declared : config.wire;
  const installOnce = async (): Promise<number> => {
    const credentials = await openCredentials(config, options.secrets);
    const connection: Connection = await connect({
      ...config,
      ...credentials,
      wire,
      checkFence: false,
    });
    try {
      const readings = await install(connection);
      const bad = readings.filter((reading) => !reading.ok).length;
      if (bad > 0) throw new FenceError(`${bad} node(s) do not hold '${wire}' after the install.`);
      return readings.length;
    } finally {
      await connection.close();
    }
  };

  const nodes = await withRetries(installOnce, options);
  log('info', 'fence installed', { request: event.RequestType, wire, nodes });
  return { PhysicalResourceId: FENCE_PHYSICAL_ID, Data: { Wire: wire, Nodes: nodes } };
}

async function withRetries<T>(attempt: () => Promise<T>, options: FenceEventOptions): Promise<T> {
  const deadline = Date.now() + (options.retryForMs ?? 240_000);
  const backoff = options.backoffMs ?? ((n: number) => Math.min(1_000 * 2 ** (n - 1), 10_000));
  for (let tries = 1; ; tries += 1) {
    try {
      return await attempt();
    } catch (error) {
      log('warn', 'fence install attempt failed', { attempt: tries, ...errorFields(error) });
      if (!transient(error)) throw publicFailure(error);
      const pause = backoff(tries);
      if (Date.now() + pause > deadline) throw publicFailure(error);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** Worth another try: the servers cannot serve yet. A fence mismatch needs an operator. */
function transient(error: unknown): boolean {
  return error instanceof EmqError && error.retryable && !(error instanceof FenceError);
}

/**
 * CloudFormation shows this message in the stack events: EmqError messages name no host or
 * credential; anything else is reduced to its class.
 */
function publicFailure(error: unknown): Error {
  const reason =
    error instanceof EmqError
      ? `${error.code}: ${error.message}`
      : `${error instanceof Error ? error.name : typeof error} (see the function's log)`;
  return new Error(`Installing the EchoMQ wire identity failed: ${reason}`);
}
