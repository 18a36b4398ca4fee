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
