/**
 * Reads the final keyspace of a scenario's queues and holds it against the ledger: every
 * accepted request has exactly one row, under the id its caller was told, listed in the
 * pending set; no row exists that no request explains.
 */
import type { Connection } from '../../../src/index.js';
import { jobKey } from '../../../src/keyspace/keyspace.js';
import { jobsOf } from '../../support/emq.js';
import { type Ledger, type LogicalRequest, tagOf } from './ledger.js';

export interface Audit {
  /** Job rows in the scenario's queues. */
  readonly rows: number;
  /** Members of the scenario's pending sets. */
  readonly pending: number;
  /** Accepted requests with no row. */
  readonly lost: readonly LogicalRequest[];
  /** Requests with more than one row. */
  readonly doubled: readonly LogicalRequest[];
  /** Rows whose payload names no request of this scenario. */
  readonly strangers: readonly string[];
  /** Rows of requests that were never accepted (refused, or given up after a timed-out write). */
  readonly unacknowledged: readonly string[];
  /** Accepted requests whose row is not under the id the caller was told. */
  readonly misdirected: readonly LogicalRequest[];
  /** Row ids missing from their pending set. */
  readonly unlisted: readonly string[];
  /** Pending ids with no row. */
  readonly orphans: readonly string[];
}

export async function audit(
  reader: Connection,
  queues: readonly string[],
  ledger: Ledger,
): Promise<Audit> {
  const rowsOf = new Map<LogicalRequest, string[]>();
  const strangers: string[] = [];
  const unlisted: string[] = [];
  const orphans: string[] = [];
  let rows = 0;
  let pending = 0;

  for (const queue of new Set(queues)) {
    const jobs = await jobsOf(reader, queue);
    rows += jobs.rows.length;
    pending += jobs.pending.length;
    const listed = new Set(jobs.pending);
    const present = new Set(jobs.rows);
    unlisted.push(...jobs.rows.filter((id) => !listed.has(id)).map((id) => `${queue}/${id}`));
    orphans.push(...jobs.pending.filter((id) => !present.has(id)).map((id) => `${queue}/${id}`));

    const payloads = await payloadsOf(reader, queue, jobs.rows);
    jobs.rows.forEach((id, at) => {
      const payload = payloads[at];
      const tag = payload === undefined ? undefined : tagOf(payload);
      const request = tag === undefined ? undefined : ledger.find(tag.face, tag.n);
      if (request === undefined || request.queue !== queue || !payload?.equals(request.payload)) {
        strangers.push(`${queue}/${id}`);
        return;
      }
      rowsOf.set(request, [...(rowsOf.get(request) ?? []), id]);
    });
  }

  const accepted = ledger.requests.filter((request) => request.settlement === 'accepted');
  return {
    rows,
    pending,
    lost: accepted.filter((request) => !rowsOf.has(request)),
    doubled: [...rowsOf].filter(([, ids]) => ids.length > 1).map(([request]) => request),
    strangers,
    unacknowledged: [...rowsOf]
      .filter(([request]) => request.settlement !== 'accepted')
      .flatMap(([request, ids]) => ids.map((id) => `${request.queue}/${id}`)),
    misdirected: accepted.filter((request) => {
      const ids = rowsOf.get(request);
      return ids !== undefined && (request.toldId === undefined || !ids.includes(request.toldId));
    }),
    unlisted,
    orphans,
  };
}

/** The payload of each row, in one pipeline per queue (a queue's keys share one slot). */
async function payloadsOf(
  reader: Connection,
  queue: string,
  ids: readonly string[],
): Promise<(Buffer | undefined)[]> {
  if (ids.length === 0) return [];
  const pipeline = reader.client.pipeline();
  for (const id of ids) pipeline.hgetBuffer(jobKey(queue, id), 'payload');
  const replies = (await pipeline.exec()) ?? [];
  return replies.map(([error, value]) => {
    if (error !== null) throw error;
    return Buffer.isBuffer(value) ? value : undefined;
  });
}
