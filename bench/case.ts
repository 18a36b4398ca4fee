/** The three server families of docs/wire.md "The calls". */
export type Family = 'native' | 'function' | 'script';

/**
 * The bench's servers: `module` loads the EchoMQ module (the native family, the raw
 * EMQ.ENQUEUE baselines, BullMQ); `plain` does not, as ElastiCache and MemoryDB run, and
 * serves the function and script families (their writes are their own HSET and ZADD there);
 * `listpack` is `plain` with `hash-max-listpack-value` raised (LISTPACK_VALUE), so a row of the
 * bench's payload is a listpack instead of a hash table.
 */
export type ServerName = 'module' | 'plain' | 'listpack';

/** The `hash-max-listpack-value` of the `listpack` server (bench/README.md says why 1024). */
export const LISTPACK_VALUE = 1024;

/** Where a family runs in the bench: as it runs on AWS. */
export function serverOf(family: Family): ServerName {
  return family === 'native' ? 'module' : 'plain';
}

/** Commands a family's admission sends at top level, as INFO commandstats names them. */
export function topLevelOf(family: Family): string[] {
  if (family === 'native') return ['emq.admit', 'emq.enqueue', 'fcall'];
  return family === 'function' ? ['fcall'] : ['evalsha', 'eval'];
}

/** One scoreboard case: a unit of work (one call, one batch) repeated for a round. */
export interface BenchCase {
  /** Stable key in results/latest.json, e.g. `lib.many100.native`. */
  readonly id: string;
  /** What the table shows. */
  readonly label: string;
  /** Who is measured: ours (this package) or a baseline. */
  readonly side: 'ours' | 'raw' | 'bullmq';
  /** Jobs one unit admits. */
  readonly jobsPerUnit: number;
  /** Units kept in flight together (1: sequential). Default 1. */
  readonly inFlight?: number;
  /** The server it runs on (its INFO is the case's). Default `module`. */
  readonly server?: ServerName;
  /** Commands this case sends at top level, as INFO commandstats names them. */
  readonly topLevel: readonly string[];
  /**
   * Readies a round of `units` units outside the clock (events built, connection warm) and
   * answers the unit to time; `unit(i)` runs the i-th.
   */
  round(units: number): Promise<(i: number) => Promise<unknown>>;
}

/** The job data of every case: an object of a typical small job, 100 bytes as JSON. */
export const PAYLOAD_OBJECT = {
  sku: 'A-113',
  qty: 2,
  customer: 'c-0042',
  note: 'a typical small job payload: one hundred bytes!',
} as const;

/** The same data as our faces receive it (BullMQ stringifies the object itself). */
export const PAYLOAD = JSON.stringify(PAYLOAD_OBJECT);
