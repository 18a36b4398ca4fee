/**
 * EMQ_ACK_REPLICAS as deployed (SPEC §11): 1 wherever the stack knows that every shard has a
 * replica and nothing else confirms a write, so an acknowledged write survives the loss of
 * its primary; 0 where ElastiCache's `durability=sync` log already holds every acknowledged
 * write (a WAIT would add latency and nothing else), where the stack cannot know (an
 * existing endpoint), and where no replica answers WAIT (shards without replicas). On
 * Serverless WAIT does not exist, so anything but 0 is refused.
 */
import type { CacheKind } from './cache-settings.js';
import type { Durability } from './durability-settings.js';
import type { Check, IntCheck } from './resolved.js';

/** The part of a resolved cache these rules read. */
interface CacheLayout {
  readonly kind: CacheKind;
  readonly replicasPerShard?: number;
  readonly durability?: Durability;
}

/** Replicas per shard the stack deploys, or undefined when it does not know them. */
function knownReplicas(cache: CacheLayout): number | undefined {
  if (cache.kind === 'elasticache' || cache.kind === 'selfmanaged') return cache.replicasPerShard;
  return undefined;
}

export function defaultAckReplicas(cache: CacheLayout): number {
  if (cache.kind === 'elasticache' && cache.durability === 'sync') return 0;
  const replicas = knownReplicas(cache);
  return replicas !== undefined && replicas >= 1 ? 1 : 0;
}

export function checkAckReplicas(
  ackReplicas: number,
  cache: CacheLayout,
  check: Check,
  int: IntCheck,
): void {
  int('ackReplicas', ackReplicas, 0, 5);
  if (cache.kind === 'serverless') {
    check(
      ackReplicas === 0,
      `ackReplicas (${ackReplicas}) must be 0 on cache=serverless: ElastiCache Serverless has no WAIT (it replicates inside the service), so no write could be confirmed by a replica.`,
    );
    return;
  }
  const replicas = knownReplicas(cache);
  if (replicas === undefined || !Number.isSafeInteger(replicas)) return;
  check(
    ackReplicas <= replicas,
    `ackReplicas (${ackReplicas}) exceeds the replicas per shard of cache=${cache.kind} (${replicas}): every write would answer EMQ_UNCONFIRMED; lower ackReplicas or add replicas.`,
  );
}
