/**
 * Durable acknowledgements on ElastiCache for Valkey 9.x (`-c durability=sync|async|off`): a
 * Multi-AZ transaction log under the replication group. What AWS documents (ElastiCache User
 * Guide, the "Durability" pages) and what the stack checks before CloudFormation sees it:
 * - "Limitations": Valkey 9.0 or later; node types of the R7g, R6g, M7g, M6g and C7gn
 *   families (the page's Japanese and Spanish versions also list R8g, M8g and C8gn); cluster
 *   mode enabled; Multi-AZ with at least one replica per shard; TLS in transit at creation
 *   (encryption at rest comes with it); not Serverless, Global Datastores, Outposts, Local
 *   Zones or data tiering; at most 100 MiB/s of writes per primary.
 * - The stack always deploys cluster mode, Multi-AZ with automatic failover, 1 to 5 replicas
 *   per shard, TLS required and encryption at rest, so only the engine version and the node
 *   type can rule a choice out: both are checked here, naming what to change.
 * - "Options": `sync` answers a write once the log holds it in at least two AZs (single-digit
 *   ms); `async` answers first, and a failure can lose the last 10 s of acknowledged writes.
 * - aws-cdk-lib 2.276 (`CfnReplicationGroup.durability`): CloudFormation refuses to turn
 *   durability on or off on an existing replication group; sync and async switch in place.
 */
import type { Ensure } from '../../shared/resolved.js';

/** `sync`: the log is the acknowledgement; `async`: the log trails; `off`: no log. */
export type Durability = 'sync' | 'async' | 'off';
const DURABILITIES: readonly Durability[] = ['sync', 'async', 'off'];

/** AWS recommends sync where no acknowledged write may be lost, which is this project's promise. */
export const DEFAULT_DURABILITY: Durability = 'sync';

/** The node type families AWS lists for durability (the English page and its newer translations). */
export const DURABLE_NODE_FAMILIES: readonly string[] = [
  'r8g',
  'r7g',
  'r6g',
  'm8g',
  'm7g',
  'm6g',
  'c8gn',
  'c7gn',
];

/** The burstable node of a stack without durability: small and cheap, as before durability. */
export const NON_DURABLE_NODE_TYPE = 'cache.t4g.small';
/**
 * The smallest general-purpose node of a family durability supports: the nearest to
 * cache.t4g.small that AWS allows (no t-type is listed).
 */
export const DURABLE_NODE_TYPE = 'cache.m7g.large';

/** The default node type of a durability choice. */
export function defaultNodeType(durability: Durability): string {
  return durability === 'off' ? NON_DURABLE_NODE_TYPE : DURABLE_NODE_TYPE;
}

/** Whether an ElastiCache engine version offers durability (9.0 or later). */
export function offersDurability(engineVersion: string): boolean {
  return Number.parseInt(engineVersion, 10) >= 9;
}

/**
 * `CfnReplicationGroup.durability`: the mode on 9.x (`disabled` for off, so that a later AWS
 * `default` never turns a log on unasked); nothing before 9.0, which has no such property.
 */
export function cfnDurability(durability: Durability, engineVersion: string): string | undefined {
  if (!offersDurability(engineVersion)) return undefined;
  return durability === 'off' ? 'disabled' : durability;
}

/**
 * Reports a durability choice that ElastiCache does not offer with this engine or node type.
 * `engineVersion` undefined: an engine already refused, so not judged again here.
 */
export function checkDurability(
  cache: {
    readonly durability: string;
    readonly engineVersion: string | undefined;
    readonly nodeType: string;
  },
  ensure: Ensure,
): void {
  const { durability, engineVersion, nodeType } = cache;
  if (!DURABILITIES.some((known) => known === durability)) {
    ensure(false, `durability must be one of ${DURABILITIES.join(', ')}; got '${durability}'.`);
    return;
  }
  if (durability === 'off') return;
  ensure(
    engineVersion === undefined || offersDurability(engineVersion),
    `durability=${durability} needs ElastiCache for Valkey 9.0 or later; engine ${engineVersion} has no durability: set engineVersion=9.1 or durability=off.`,
  );
  const family = nodeType.split('.')[1] ?? '';
  ensure(
    DURABLE_NODE_FAMILIES.includes(family),
    `durability=${durability} is not offered on ${nodeType}: ElastiCache durability runs on the ${DURABLE_NODE_FAMILIES.join(', ')} node families only: set nodeType=${DURABLE_NODE_TYPE} or durability=off.`,
  );
}
