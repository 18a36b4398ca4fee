// Round trips of the SQS face on a real server (docs/wire.md, "Idempotency records"), counted by a
// TCP proxy in front of it: a batch of first deliveries costs one round trip; a redelivered batch
// takes the safe order (two); a FIFO batch waits for each record of a group before the next.
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLogSink } from '../../functions/shared/log.js';
import { handleSqsBatch } from '../../functions/sqs/batch.js';
import { type Connection, connect } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import { captureLogs } from '../fixtures/sqs/logs.js';
import { redelivered, sqsEvent, sqsRecord } from '../fixtures/sqs/records.js';
import { type RoundTripProxy, startRoundTripProxy } from '../fixtures/sqs/round-trip-proxy.js';
import { admissionOf, jobsOf, startFencedServer } from '../support/emq.js';
import { randomQueue, type ServerHandle } from '../support/servers.js';
import { type Dlq, useSqs } from '../support/sqs.js';

let server: ServerHandle;
let proxy: RoundTripProxy;
const sqs = useSqs();

beforeAll(async () => {
  server = await startFencedServer();
  proxy = await startRoundTripProxy(server.port);
});

// The face's log lines would flood the runner's output; nothing here reads them.
captureLogs();

afterAll(async () => {
  await proxy?.close();
  await server?.stop();
});

function tenOf(queue: string, spec: Parameters<typeof sqsRecord>[0] = {}): SQSRecord[] {
  return Array.from({ length: 10 }, (_, i) => sqsRecord({ queue, body: `job ${i}`, ...spec }));
}

describe.each(['native', 'function'] as const)('with the %s family', (family) => {
  let conn: Connection;

  beforeAll(async () => {
    conn = await connect({ urls: [proxy.url], family });
    // Warm the connection (the script family's first call per socket carries the script).
    const restore = setLogSink(() => {});
    try {
      await handleSqsBatch(sqsEvent(tenOf(randomQueue('warm'))), {
        admission: admissionOf(conn),
        sqs: sqs().client,
      });
    } finally {
      setLogSink(restore);
    }
  });

  afterAll(() => conn?.close());

  /** Handles the batch and answers how many round trips it took (SQS's are not counted). */
  async function roundTripsOf(records: SQSRecord[], dlq: Dlq = sqs().dlq()): Promise<number> {
    proxy.reset();
    const response = await handleSqsBatch(sqsEvent(records), {
      admission: admissionOf(conn, { dlqUrl: dlq.url }),
      sqs: sqs().client,
    });
    expect(response).toEqual({ batchItemFailures: [] });
    return proxy.roundTrips();
  }

  it('admits a batch of 10 first deliveries in one round trip', async () => {
    const queue = randomQueue('first');
    expect(await roundTripsOf(tenOf(queue))).toBe(1);
    expect((await jobsOf(conn, queue)).rows).toHaveLength(10);
  });

  it('admits a batch of 10 records with caller ids in one round trip', async () => {
    const queue = randomQueue('ids');
    const records = tenOf(queue).map((record) =>
      sqsRecord({ queue, body: record.body, jobId: mintId() }),
    );
    expect(await roundTripsOf(records)).toBe(1);
  });

  it('admits 10 first deliveries spread over 10 queues in one round trip', async () => {
    const records = Array.from({ length: 10 }, () => sqsRecord({ queue: randomQueue('many') }));
    expect(await roundTripsOf(records)).toBe(1);
  });

  it('admits a redelivered batch of 10 in one round trip, as a first delivery', async () => {
    const queue = randomQueue('again');
    expect(await roundTripsOf(tenOf(queue, { receiveCount: 2 }))).toBe(1);
    expect((await jobsOf(conn, queue)).rows).toHaveLength(10);
  });

  it('answers a replayed batch of 10 in one round trip (the admit call compares the payload)', async () => {
    const queue = randomQueue('replay');
    const batch = tenOf(queue);
    await roundTripsOf(batch);
    expect(await roundTripsOf(batch.map((record) => redelivered(record, 1)))).toBe(1);
  });

  it('dead-letters a batch the face refuses without any round trip', async () => {
    const batch = tenOf('bad queue');
    const dlq = sqs().dlq();
    expect(await roundTripsOf(batch, dlq)).toBe(0);
    expect((await dlq.letters()).map((letter) => letter.body).sort()).toEqual(
      batch.map((record) => record.body).sort(),
    );
  });

  it('takes one round trip per record of a FIFO message group, one for many groups', async () => {
    const queue = randomQueue('fifo');
    expect(await roundTripsOf(tenOf(queue, { groupId: 'one' }))).toBe(10);
    const groups = Array.from({ length: 10 }, (_, i) =>
      sqsRecord({ queue, groupId: `g${i}`, body: `g${i}` }),
    );
    expect(await roundTripsOf(groups)).toBe(1);
  });
});
