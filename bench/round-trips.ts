/**
 * Round trips counted, not timed: the faces and the library talk to the server through a TCP
 * proxy that counts a round trip each time the client sends after the server last answered.
 * A pipeline is one however many commands it holds.
 */
import type { SQSEvent } from 'aws-lambda';
import { handler as sqsHandler } from '../functions/sqs/handler.js';
import { connect, enqueueMany } from '../src/index.js';
import { startRoundTripProxy } from '../test/fixtures/sqs/round-trip-proxy.js';
import { PAYLOAD } from './case.js';
import {
  closeContainer,
  type ExecutorKind,
  firstDeliveries,
  lambdaContext,
  useContainer,
} from './cases/faces.js';

export interface RoundTripCount {
  readonly what: string;
  readonly executor: ExecutorKind;
  /** Round trips per batch (the median of a few batches). */
  readonly perBatch: number;
}

const BATCHES = 5;

export async function countRoundTrips(port: number): Promise<RoundTripCount[]> {
  const proxy = await startRoundTripProxy(port);
  const counts: RoundTripCount[] = [];
  const countEach = async (run: () => Promise<unknown>): Promise<number> => {
    await run(); // warm: a fresh socket carries the script once
    const seen: number[] = [];
    for (let i = 0; i < BATCHES; i++) {
      proxy.reset();
      await run();
      seen.push(proxy.roundTrips());
    }
    return Math.max(...seen);
  };
  try {
    for (const executor of ['native', 'function'] as const) {
      await useContainer(executor, proxy.url);
      const sqs = await countEach(async () => {
        const event: SQSEvent = firstDeliveries(10);
        await sqsHandler(event, lambdaContext());
      });
      counts.push({ what: 'SQS handler, 10 first deliveries', executor, perBatch: sqs });
      const redelivered = await countEach(async () => {
        const event = firstDeliveries(10);
        for (const record of event.Records) record.attributes.ApproximateReceiveCount = '2';
        await sqsHandler(event, lambdaContext());
      });
      counts.push({
        what: 'SQS handler, 10 redeliveries',
        executor,
        perBatch: redelivered,
      });

      const connection = await connect({ urls: [proxy.url], executor });
      try {
        for (const size of [10, 100]) {
          const batch = Array.from({ length: size }, () => ({
            queue: 'bench-rt',
            payload: PAYLOAD,
          }));
          const trips = await countEach(() => enqueueMany(connection, batch));
          counts.push({ what: `library enqueueMany ×${size}`, executor, perBatch: trips });
        }
      } finally {
        await connection.close();
      }
    }
  } finally {
    await closeContainer();
    await proxy.close();
  }
  return counts;
}
