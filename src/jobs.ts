/**
 * Reads and operator actions on a queue: a job row read back, the pending ids in the order
 * workers take them, and purging the queue's dead idempotency records on demand (admission
 * purges a bounded number on every call; this sweeps a whole queue, a bounded step at a time).
 */
import type { Cluster, Valkey } from 'iovalkey';
import type { Connection } from './connection/connector.js';
import { KeyedCommand } from './families/command.js';
import { SCRIPT_SHA } from './families/library.js';
import {
  checkedJobId,
  checkedQueue,
  type JobId,
  pendingKey,
  type QueueName,
  recordSlotKeys,
  trustedJobKey,
} from './keyspace/keyspace.js';
import { classifyFailure } from './outcomes/outcome-rules.js';

export interface JobRow {
  readonly state: string;
  readonly attempts: number;
  readonly payload: Buffer;
}

/** Reads a job row back, or null when there is none (never enqueued, or consumed). */
export function readJob(
  target: { readonly client: Valkey | Cluster },
  queue: string,
  id: string,
): Promise<JobRow | null> {
  // Checked before any I/O: a bad queue or id throws InvalidInputError here.
  return readCheckedJob(target, checkedQueue(queue), checkedJobId(id));
}

/** `readJob` of a queue and id their face checked already (its boundary). */
export async function readCheckedJob(
  target: { readonly client: Valkey | Cluster },
  queue: QueueName,
  id: JobId,
): Promise<JobRow | null> {
  const key = trustedJobKey(queue, id);
  let row: Record<string, Buffer>;
  try {
    row = await target.client.hgetallBuffer(key);
  } catch (error) {
    throw classifyFailure(error);
  }
  const { state, attempts, payload } = row;
  if (state === undefined || payload === undefined) return null;
  return { state: state.toString(), attempts: Number(attempts?.toString() ?? 0), payload };
}

export interface PendingPage {
  /** The first ids in the set's order (score 0, then byte order: mint order). */
  readonly ids: string[];
  /** How many ids the set holds in all. */
  readonly total: number;
}

/** The first `limit` pending ids of `queue` and the set's size, in one round trip. */
export async function listPending(
  target: { readonly client: Valkey | Cluster },
  queue: string,
  limit: number,
): Promise<PendingPage> {
  const key = pendingKey(queue);
  let replies: [Error | null, unknown][] | null;
  try {
    // Both commands name one key, so the pipeline stays on one node in a cluster.
    replies = await target.client
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

export interface PurgeReport {
  /** Dead records deleted. */
  readonly deleted: number;
  /** Record slots unlinked whole (all their records were dead). */
  readonly unlinked: number;
}

/** Records examined per call: a step the server finishes in well under a millisecond or two. */
const PURGE_STEP = 1_000;

/**
 * Deletes every dead idempotency record of `queue` (docs/wire.md), one bounded call at a time
 * (the library's emq_purge, by FCALL or, in the script family, EVALSHA). Live records stay.
 */
export async function purgeRecords(connection: Connection, queue: string): Promise<PurgeReport> {
  const slots = recordSlotKeys(queue);
  let position = '0:0';
  let deleted = 0;
  let unlinked = 0;
  do {
    const parts =
      connection.family.name === 'script'
        ? ['EVALSHA', SCRIPT_SHA, '4', ...slots, 'purge', String(PURGE_STEP), position]
        : ['FCALL', 'emq_purge', '4', ...slots, String(PURGE_STEP), position];
    const command = new KeyedCommand(parts, slots[0] as string);
    let reply: unknown;
    try {
      reply = await connection.client.sendCommand(command);
    } catch (error) {
      throw classifyFailure(error);
    }
    const [gone, emptied, next] = Array.isArray(reply) ? reply : [];
    if (typeof gone !== 'number' || typeof emptied !== 'number' || typeof next !== 'string') {
      throw classifyFailure(new Error('unexpected reply to emq_purge'));
    }
    deleted += gone;
    unlinked += emptied;
    position = next;
  } while (position !== '');
  return { deleted, unlinked };
}
