/**
 * Round trips counted, not timed: the faces and the library talk to the server through a TCP
 * proxy that counts a round trip each time the client sends after the server last answered.
 * A pipeline is one however many commands it holds. Each family is counted on its own server.
 */
import type { SQSEvent } from 'aws-lambda';
import { handler as sqsHandler } from '../functions/sqs/handler.js';
import { connect, enqueueMany } from '../src/index.js';
import { startRoundTripProxy } from '../test/fixtures/sqs/round-trip-proxy.js';
import { type Family, PAYLOAD, type ServerName, serverOf } from './case.js';
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

const FAMILIES: readonly Family[] = ['native', 'function', 'script'];

/** Counts each family's round trips on its own server (`ports`), through a proxy per server. */
export async function countRoundTrips(
  ports: Readonly<Record<ServerName, number>>,
): Promise<RoundTripCount[]> {
  const counts: RoundTripCount[] = [];
  for (const executor of FAMILIES) counts.push(...(await countFamily(executor, ports)));
  return counts;
}

async function countFamily(
  executor: Family,
  ports: Readonly<Record<ServerName, number>>,
): Promise<RoundTripCount[]> {
  const proxy = await startRoundTripProxy(ports[serverOf(executor)]);
  const counts: RoundTripCount[] = [];
  /** Runs `prepare` outside the count, then counts `run`'s round trips; the most of a few runs. */
  const countEach = async <T>(
    prepare: () => Promise<T>,
    run: (prepared: T) => Promise<unknown>,
  ): Promise<number> => {
    await run(await prepare()); // warm: a fresh container connects and checks first
    const seen: number[] = [];
    for (let i = 0; i < BATCHES; i++) {
      const prepared = await prepare();
      proxy.reset();
      await run(prepared);
      seen.push(proxy.roundTrips());
    }
    return Math.max(...seen);
  };
  try {
    await useContainer(executor, proxy.url);
    const sqs = await countEach(
      async () => firstDeliveries(10),
      (event: SQSEvent) => sqsHandler(event, lambdaContext()),
    );
    counts.push({ what: 'SQS handler, 10 first deliveries', executor, perBatch: sqs });
    // A redelivery is the same messages again: their records answer duplicate (and are touched).
    const redelivered = await countEach(
      async () => {
        const event = firstDeliveries(10);
        await sqsHandler(event, lambdaContext());
        for (const record of event.Records) record.attributes.ApproximateReceiveCount = '2';
        return event;
      },
      (event: SQSEvent) => sqsHandler(event, lambdaContext()),
    );
    counts.push({ what: 'SQS handler, 10 redeliveries', executor, perBatch: redelivered });

    const connection = await connect({ urls: [proxy.url], executor });
    try {
      for (const size of [10, 100]) {
        const batch = Array.from({ length: size }, () => ({ queue: 'bench-rt', payload: PAYLOAD }));
        const trips = await countEach(
          async () => batch,
          (requests) => enqueueMany(connection, requests),
        );
        counts.push({ what: `library enqueueMany ×${size}`, executor, perBatch: trips });
      }
    } finally {
      await connection.close();
    }
  } finally {
    await closeContainer();
    await proxy.close();
  }
  return counts;
}
