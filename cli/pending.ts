/**
 * Lists a queue's pending ids. The core has no listing function yet, so this reads the
 * pending set directly; its key still comes from the keyspace module.
 */
import { type Connection, classifyFailure, pendingKey } from '../src/index.js';

export interface PendingPage {
  /** The first ids in the set's order (score 0, then byte order: mint order). */
  readonly ids: string[];
  /** How many ids the set holds in all. */
  readonly total: number;
}

/** The first `limit` pending ids of `queue` and the set's size, in one round trip. */
export async function listPending(
  connection: Pick<Connection, 'client'>,
  queue: string,
  limit: number,
): Promise<PendingPage> {
  const key = pendingKey(queue);
  let replies: [Error | null, unknown][] | null;
  try {
    // Both commands name one key, so the pipeline stays on one node in a cluster.
    replies = await connection.client
      .pipeline()
      .zcard(key)
      .zrange(key, 0, limit - 1)
      .exec();
  } catch (error) {
    throw classifyFailure(error);
  }
  const [count, range] = replies ?? [];
  for (const reply of [count, range]) {
    if (reply === undefined) throw classifyFailure(new Error('Connection is closed.'));
    if (reply[0] !== null) throw classifyFailure(reply[0]);
  }
  const total = Number(count?.[1]);
  const ids = range?.[1];
  if (!Array.isArray(ids) || !Number.isSafeInteger(total)) {
    throw classifyFailure(new Error('unexpected reply to ZCARD/ZRANGE'));
  }
  return { ids: ids.map(String), total };
}
