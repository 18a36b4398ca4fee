/**
 * The fence installer's answer to a CloudFormation custom-resource event (docs/wire.md,
 * "The fence"; docs/deploy.md, "Into an existing account"): Create and Update install the wire
 * identity on every primary with the same install the CLI uses, or, where the resource's `Mode` is
 * `verify` (an existing cache given no installer credentials: the installer connects as the
 * functions' user), only check that every primary already holds it. An Update whose `Rollout` is
 * `gradual` first reads the live identity and fails, writing nothing, where the release changes it.
 * Delete leaves the fence alone (other stacks and hosts may rely on it). Both are idempotent, so
 * CloudFormation may send the same event twice.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { type Connection, connect } from '../../src/connection/connector.js';
import { install, verify } from '../../src/connection/fence.js';
import { readNodes } from '../../src/connection/node-reading.js';
import { EmqError, FenceError } from '../../src/outcomes/outcomes.js';
import { type Env, loadConfig } from '../../src/settings/config.js';
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

/**
 * The resource's `Mode`: `install` with the installer's own credentials, `verify` with the
 * functions' (which may not write the identity or load the library). A resource without one
 * (a stack from before the property) installs.
 */
export type FenceMode = 'install' | 'verify';

/**
 * The resource's `Rollout`: `gradual` where traffic shifts from the live version to the new one
 * over minutes (CodeDeploy canary or linear), else all at once (no property: all at once).
 */
export type Rollout = 'gradual' | 'all-at-once';

/**
 * A gradual rollout serves the live and the new version side by side: where the new one
 * expects another wire identity, each refuses the other's fence (EMQWIRE) for as long as the
 * shift lasts. Read before anything is written, on an Update: the live identity is the one
 * the primaries hold.
 */
async function refuseGradualAcrossIdentities(connection: Connection, wire: string): Promise<void> {
  const live = (await readNodes(connection)).find(
    (reading) => reading.value !== null && reading.value !== wire,
  );
  if (live === undefined) return;
  throw new FenceError(
    `This release changes the wire identity from '${live.value}' to '${wire}', and a gradual rollout is configured: the live and the new functions would refuse each other's fence while traffic shifts. Deploy this release all at once (leave the construct's rollout out), then set rollout again for later releases (docs/upgrading.md).`,
  );
}

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
  const mode: FenceMode = event.ResourceProperties.Mode === 'verify' ? 'verify' : 'install';
  const gradual =
    event.RequestType === 'Update' &&
    event.ResourceProperties.Rollout === ('gradual' satisfies Rollout);
  const installOnce = async (): Promise<number> => {
    const credentials = await openCredentials(config, options.secrets);
    const connection: Connection = await connect({
      ...config,
      ...credentials,
      wire,
      checkFence: false,
    });
    try {
      if (gradual) await refuseGradualAcrossIdentities(connection, wire);
      const readings = await (mode === 'verify' ? verify(connection) : install(connection));
      const bad = readings.filter((reading) => !reading.ok).length;
      if (bad > 0) throw new FenceError(`${bad} node(s) do not hold '${wire}' after the install.`);
      return readings.length;
    } finally {
      await connection.close();
    }
  };

  const nodes = await withRetries(installOnce, mode, options);
  log('info', mode === 'verify' ? 'fence verified' : 'fence installed', {
    request: event.RequestType,
    wire,
    nodes,
  });
  return { PhysicalResourceId: FENCE_PHYSICAL_ID, Data: { Wire: wire, Nodes: nodes } };
}

async function withRetries<T>(
  attempt: () => Promise<T>,
  mode: FenceMode,
  options: FenceEventOptions,
): Promise<T> {
  const deadline = Date.now() + (options.retryForMs ?? 240_000);
  const backoff = options.backoffMs ?? ((n: number) => Math.min(1_000 * 2 ** (n - 1), 10_000));
  for (let tries = 1; ; tries += 1) {
    try {
      return await attempt();
    } catch (error) {
      log('warn', 'fence install attempt failed', { attempt: tries, ...errorFields(error) });
      if (!transient(error)) throw publicFailure(error, mode);
      const pause = backoff(tries);
      if (Date.now() + pause > deadline) throw publicFailure(error, mode);
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
function publicFailure(error: unknown, mode: FenceMode): Error {
  const reason =
    error instanceof EmqError
      ? `${error.code}: ${error.message}`
      : `${error instanceof Error ? error.name : typeof error} (see the function's log)`;
  if (mode === 'install') return new Error(`Installing the EchoMQ wire identity failed: ${reason}`);
  // The deploy's own remedy beside the operator's: the construct installs where it is given credentials.
  const remedy =
    error instanceof FenceError
      ? " Or give EchoMqCache.existing an installer ({ secret } or { iam }) with the installer's rules, and the deploy installs it."
      : '';
  return new Error(`Verifying the EchoMQ wire identity failed: ${reason}${remedy}`);
}
