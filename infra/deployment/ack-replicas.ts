/**
 * EMQ_ACK_REPLICAS as deployed (docs/reliability.md, "Acknowledgements"): 1 wherever the construct
 * knows that every shard has a replica and nothing else confirms a write, so an acknowledged write
 * survives the loss of its primary; 0 where a log already holds every acknowledged write
 * (ElastiCache `durability=sync`: a WAIT would add latency and nothing else), where the construct
 * cannot know (an existing endpoint), and where no replica answers WAIT. Where WAIT does not exist
 * (Serverless), anything but 0 is refused. Each kind's module says which holds.
 */
import { moduleOf, type ResolvedCache } from '../cache/modules.js';
import type { Ensure } from '../shared/resolved.js';

export function defaultAckReplicas(cache: ResolvedCache): number {
  const kind = moduleOf(cache);
  if (kind.logConfirmsWrites(cache)) return 0;
  const replicas = kind.knownReplicas(cache);
  return replicas !== undefined && replicas >= 1 ? 1 : 0;
}

/** The bounds are the settings table's (checked with the runtime's loadConfig). */
export function checkAckReplicas(ackReplicas: number, cache: ResolvedCache, ensure: Ensure): void {
  const kind = moduleOf(cache);
  if (kind.noWait !== undefined) {
    ensure(
      ackReplicas === 0,
      `ackReplicas (${ackReplicas}) must be 0 on cache=${cache.kind}: ${kind.noWait}.`,
    );
    return;
  }
  const replicas = kind.knownReplicas(cache);
  if (replicas === undefined || !Number.isSafeInteger(replicas)) return;
  ensure(
    ackReplicas <= replicas,
    `ackReplicas (${ackReplicas}) exceeds the replicas per shard of cache=${cache.kind} (${replicas}): every write would answer EMQ_UNCONFIRMED; lower ackReplicas or add replicas.`,
  );
}
