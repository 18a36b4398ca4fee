/**
 * The order records are attempted in. A standard queue's batch is one wave: every record goes
 * to the core in one call. A FIFO queue's records must not overtake an earlier record of their
 * message group, so wave n holds the n-th record of every group; a group whose record fails
 * is not attempted further (see batch.ts).
 */
import type { SQSRecord } from 'aws-lambda';

/** A FIFO source: its ARN names a `.fifo` queue. */
export function isFifoSqsRecord(record: Pick<SQSRecord, 'eventSourceARN'>): boolean {
  // A direct invoke's record can hold anything: one that is not a text orders nothing here,
  // and record.ts refuses the record.
  const arn: unknown = record.eventSourceARN;
  return typeof arn === 'string' && arn.endsWith('.fifo');
}

/** The message group that orders a record, or undefined when nothing orders it. */
export function orderingGroup(
  record: Pick<SQSRecord, 'eventSourceARN' | 'attributes'>,
): string | undefined {
  if (!isFifoSqsRecord(record)) return undefined;
  const group: unknown = record.attributes?.MessageGroupId;
  return typeof group === 'string' ? group : '';
}

/**
 * Record indices per wave, in batch order within a wave. `groups[i]` is record i's ordering
 * group; undefined (standard queues) puts the record in the first wave.
 */
export function wavesOf(groups: readonly (string | undefined)[]): number[][] {
  const waves: number[][] = [];
  const seen = new Map<string, number>();
  groups.forEach((group, index) => {
    const position = group === undefined ? 0 : (seen.get(group) ?? 0);
    if (group !== undefined) seen.set(group, position + 1);
    const wave = waves[position];
    if (wave === undefined) waves[position] = [index];
    else wave.push(index);
  });
  return waves;
}
