/**
 * Round trips counted, not timed: the faces and the library talk to the server through a TCP
 * proxy that counts a round trip each time the client sends after the server last answered.
 * A pipeline is one however many commands it holds. Each family is counted on its own server.
 * A fresh connect() is counted too, with the commands its checks send (INFO commandstats).
 */
import type { SQSEvent } from 'aws-lambda';
import type { Valkey } from 'iovalkey';
import { handler as sqsHandler } from '../functions/sqs/handler.js';
import { connect, enqueueMany } from '../src/index.js';
import { startRoundTripProxy } from '../test/fixtures/sqs/round-trip-proxy.js';
import { type Family, PAYLOAD, type ServerName, serverOf } from './case.js';
import { closeContainer, firstDeliveries, lambdaContext, useContainer } from './cases/faces.js';
import { snapshot } from './server-stats.js';

export interface RoundTripCount {
  readonly what: string;
  readonly family: Family;
  /** Round trips per batch (the median of a few batches). */
  readonly perBatch: number;
}

/** What a cold container's connect() sends before its first admission, on one primary. */
export interface ConnectCount {
  readonly family: Family;
  readonly roundTrips: number;
  /** Commands the server ran for it, by name (INFO commandstats). */
  readonly commands: Readonly<Record<string, number>>;
}

const BATCHES = 5;

const FAMILIES: readonly Family[] = ['native', 'function', 'script'];

/** The commands a connect sent, every name together. */
export function commandsOf(count: ConnectCount): number {
  return Object.values(count.commands).reduce((sum, calls) => sum + calls, 0);
}

/**
 * Counts a fresh connect() of each family, the family named as the stacks name it, on its
 * own server: round trips through a proxy, commands from the server's commandstats (`admins`
 * read them; their own INFO is not counted).
 */
export async function countConnects(
  ports: Readonly<Record<ServerName, number>>,
  admins: Readonly<Record<ServerName, Valkey>>,
): Promise<ConnectCount[]> {
  const counts: ConnectCount[] = [];
  for (const family of FAMILIES) {
    const admin = admins[serverOf(family)];
    const proxy = await startRoundTripProxy(ports[serverOf(family)]);
    try {
      // One connect first: it leaves the script family's script loaded, as the installer does.
      await (await connect({ urls: [proxy.url], family })).close();
      const before = await snapshot(admin);
      proxy.reset();
      const connection = await connect({ urls: [proxy.url], family });
      const roundTrips = proxy.roundTrips();
      const after = await snapshot(admin);
      await connection.close();
      const commands: Record<string, number> = {};
      for (const [name, now] of after.commands) {
        const calls =
          now.calls - (before.commands.get(name)?.calls ?? 0) - (name === 'info' ? 1 : 0);
        if (calls > 0) commands[name] = calls;
      }
      counts.push({ family, roundTrips, commands });
    } finally {
      await proxy.close();
    }
  }
  return counts;
}

/** Counts each family's round trips on its own server (`ports`), through a proxy per server. */
export async function countRoundTrips(
  ports: Readonly<Record<ServerName, number>>,
): Promise<RoundTripCount[]> {
  const counts: RoundTripCount[] = [];
  for (const family of FAMILIES) counts.push(...(await countFamily(family, ports)));
  return counts;
}

async function countFamily(
  family: Family,
  ports: Readonly<Record<ServerName, number>>,
): Promise<RoundTripCount[]> {
  const proxy = await startRoundTripProxy(ports[serverOf(family)]);
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
    await useContainer(family, proxy.url);
    const sqs = await countEach(
      async () => firstDeliveries(10),
      (event: SQSEvent) => sqsHandler(event, lambdaContext()),
    );
    counts.push({ what: 'SQS handler, 10 first deliveries', family, perBatch: sqs });
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
    counts.push({ what: 'SQS handler, 10 redeliveries', family, perBatch: redelivered });

    const connection = await connect({ urls: [proxy.url], family });
    try {
      for (const size of [10, 100]) {
        const batch = Array.from({ length: size }, () => ({ queue: 'bench-rt', payload: PAYLOAD }));
        const trips = await countEach(
          async () => batch,
          (requests) => enqueueMany(connection, requests),
        );
        counts.push({ what: `library enqueueMany ×${size}`, family, perBatch: trips });
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
