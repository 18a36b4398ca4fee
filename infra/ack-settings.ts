/**
 * EMQ_ACK_REPLICAS as deployed (SPEC §11): 1 wherever the stack knows that every shard has a
 * replica, so an acknowledged write survives the loss of its primary; 0 where it cannot know
 * (an existing endpoint) or where no replica answers WAIT (Serverless, shards without replicas).
 */
import type { CacheKind } from './cache-settings.js';

/** The part of a resolved cache these rules read. */
interface CacheLayout {
  readonly kind: CacheKind;
  readonly replicasPerShard?: number;
}

type Check = (ok: boolean, problem: string) => void;
type Int = (name: string, value: number, min: number, max: number) => void;

/** Replicas per shard the stack deploys, or undefined when it does not know them. */
function knownReplicas(cache: CacheLayout): number | undefined {
  if (cache.kind === 'elasticache' || cache.kind === 'selfmanaged') return cache.replicasPerShard;
  // Serverless replicates inside the service; WAIT reaches no replica of its own.
  return cache.kind === 'serverless' ? 0 : undefined;
}

export function defaultAckReplicas(cache: CacheLayout): number {
  const replicas = knownReplicas(cache);
  return replicas !== undefined && replicas >= 1 ? 1 : 0;
}

export function checkAckReplicas(
  ackReplicas: number,
  cache: CacheLayout,
  check: Check,
  int: Int,
): void {
  int('ackReplicas', ackReplicas, 0, 5);
  const replicas = knownReplicas(cache);
  if (replicas === undefined || !Number.isSafeInteger(replicas)) return;
  check(
    ackReplicas <= replicas,
    `ackReplicas (${ackReplicas}) exceeds the replicas per shard of cache=${cache.kind} (${replicas}): every write would answer EMQ_UNCONFIRMED; lower ackReplicas or add replicas.`,
  );
}
