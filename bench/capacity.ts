/**
 * Capacity: how many jobs one core of a shard admits, from the server's own CPU (INFO cpu) per
 * admitted job, 8 batches in flight, each family beside BullMQ's addBulk at the same
 * concurrency on the same run and beside its floor (the same writes as plain pipelined
 * commands, floor.ts). The first table of the scoreboard and its first verdicts.
 */
import { type Family, LISTPACK_VALUE } from './case.js';
import type { CaseResult } from './runner.js';

export const CAPACITY_SIZES = [10, 100] as const;
export const CAPACITY_IN_FLIGHT = 8;
const FAMILIES: readonly Family[] = ['native', 'function', 'script'];

export const capacityIds = {
  family: (family: Family, size: number) => `sqs.batch${size}.${family}.x${CAPACITY_IN_FLIGHT}`,
  bullmq: (size: number) => `bullmq.bulk${size}.x${CAPACITY_IN_FLIGHT}`,
  floor: (family: Family, size: number) =>
    `floor.pipe${size}.${family === 'native' ? 'module' : 'plain'}.x${CAPACITY_IN_FLIGHT}`,
};

/** The goal of jobs per core ÷ BullMQ's, per family and batch size. */
export function capacityGoal(family: Family, size: number): number {
  if (family === 'native') return 3;
  return size >= 100 ? 2 : 1.8;
}

export interface CapacityRow {
  readonly family: Family;
  readonly size: number;
  /** Server CPU µs per admitted job: the family's, BullMQ's, the floor's. */
  readonly us: number;
  readonly bullmqUs: number;
  readonly floorUs: number;
}

export function capacityRows(cases: readonly CaseResult[]): CapacityRow[] {
  const us = (id: string): number =>
    cases.find((c) => c.id === id)?.serverCpuUsPerJob.median ?? Number.NaN;
  return CAPACITY_SIZES.flatMap((size) =>
    FAMILIES.map((family) => ({
      family,
      size,
      us: us(capacityIds.family(family, size)),
      bullmqUs: us(capacityIds.bullmq(size)),
      floorUs: us(capacityIds.floor(family, size)),
    })),
  );
}

const fixed = (value: number, digits = 1): string =>
  Number.isFinite(value) ? value.toFixed(digits) : '–';

/** One row as the table shows it: µs, jobs per core, ÷ BullMQ, the floor and its ratio. */
export function capacityCells(row: CapacityRow): string[] {
  const label = `SQS face ×${row.size}, ${row.family} (${CALL[row.family]})`;
  return [
    label,
    fixed(row.us),
    Number.isFinite(row.us) ? Math.round(1e6 / row.us).toLocaleString('en-US') : '–',
    `${fixed(row.bullmqUs / row.us, 2)}×`,
    `≥ ${capacityGoal(row.family, row.size).toFixed(1)}`,
    fixed(row.floorUs),
    `${fixed(row.bullmqUs / row.floorUs, 2)}×`,
    fixed(row.bullmqUs),
  ];
}

export const CAPACITY_HEADER = [
  `server CPU per admitted job (INFO cpu), ${CAPACITY_IN_FLIGHT} batches in flight`,
  'µs/job',
  'jobs/s per core',
  'jobs per core ÷ BullMQ',
  'goal',
  'floor µs/job',
  'floor ÷ BullMQ',
  'BullMQ addBulk µs/job',
] as const;

const CALL: Readonly<Record<Family, string>> = {
  native: 'EMQ.ADMIT',
  function: 'FCALL',
  script: 'EVALSHA',
};

/**
 * Rows as listpacks: the function family and its floor on the plain server (the bench's
 * payload over the default `hash-max-listpack-value` of 64, so each row is a hash table) and
 * on the `listpack` server (the value raised to LISTPACK_VALUE): server CPU and memory per job.
 */
export function listpackCells(cases: readonly CaseResult[]): string[][] {
  const of = (id: string) => cases.find((c) => c.id === id);
  return CAPACITY_SIZES.flatMap((size) =>
    (['plain', 'listpack'] as const).map((server) => {
      const family = of(
        server === 'plain'
          ? capacityIds.family('function', size)
          : `${capacityIds.family('function', size)}.listpack`,
      );
      const floor = of(`floor.pipe${size}.${server}.x${CAPACITY_IN_FLIGHT}`);
      return [
        `SQS face ×${size}, function`,
        server === 'plain' ? '64 (default): hash table' : `${LISTPACK_VALUE}: listpack`,
        fixed(family?.serverCpuUsPerJob.median ?? Number.NaN),
        fixed(family?.memoryBytesPerJob.median ?? Number.NaN, 0),
        fixed(floor?.serverCpuUsPerJob.median ?? Number.NaN),
        fixed(floor?.memoryBytesPerJob.median ?? Number.NaN, 0),
      ];
    }),
  );
}

export const LISTPACK_HEADER = [
  `rows as listpacks, ${CAPACITY_IN_FLIGHT} batches in flight`,
  'hash-max-listpack-value: row encoding',
  'server CPU µs/job',
  'memory B/job',
  'floor µs/job',
  'floor memory B/job',
] as const;
