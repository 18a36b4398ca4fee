/** The core library itself: `enqueue` one at a time and `enqueueMany` in batches. */
import { randomUUID } from 'node:crypto';
import { type Connection, type EnqueueRequest, enqueue, enqueueMany } from '../../src/index.js';
import { type BenchCase, PAYLOAD, serverOf, topLevelOf } from '../case.js';

const QUEUE = 'bench-lib';

function requests(size: number): EnqueueRequest[] {
  return Array.from({ length: size }, () => ({ queue: QUEUE, payload: PAYLOAD }));
}

export function enqueueCase(connection: Connection): BenchCase {
  const kind = connection.family.name;
  return {
    id: `lib.enqueue.${kind}`,
    label: `library enqueue, sequential (${kind})`,
    side: 'ours',
    jobsPerUnit: 1,
    server: serverOf(kind),
    topLevel: topLevelOf(kind),
    round: async () => {
      const [request] = requests(1) as [EnqueueRequest];
      return () => enqueue(connection, request);
    },
  };
}

export function enqueueManyCase(connection: Connection, size: number): BenchCase {
  const kind = connection.family.name;
  return {
    id: `lib.many${size}.${kind}`,
    label: `library enqueueMany ×${size} (${kind})`,
    side: 'ours',
    jobsPerUnit: size,
    server: serverOf(kind),
    topLevel: topLevelOf(kind),
    round: async () => {
      const batch = requests(size);
      return () => enqueueMany(connection, batch);
    },
  };
}

/**
 * What the SQS face hands the core for a batch (a messageId key each, one admit call for the
 * queue, one round trip), without the face: the gap to the SQS case is the face's own cost.
 */
export function enqueueManyKeyedCase(connection: Connection, size: number): BenchCase {
  const kind = connection.family.name;
  return {
    id: `lib.many${size}keyed.${kind}`,
    label: `library enqueueMany ×${size}, keyed first deliveries (${kind})`,
    side: 'ours',
    jobsPerUnit: size,
    server: serverOf(kind),
    topLevel: topLevelOf(kind),
    round: async (units) => {
      const batches = Array.from({ length: units }, () =>
        Array.from(
          { length: size },
          (): EnqueueRequest => ({
            queue: QUEUE,
            payload: Buffer.from(PAYLOAD),
            idempotencyKey: randomUUID(),
            origin: 'sqs',
          }),
        ),
      );
      return (i) => enqueueMany(connection, batches[i] ?? []);
    },
  };
}
