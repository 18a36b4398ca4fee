// A call in flight when its connection closes settles at once, whatever the topology: on a
// standalone server and on a replicated pair's primary, a write held by CLIENT PAUSE WRITE
// whose connection CLIENT KILL closes is sent again once the connection is back (and admitted
// once), or answered retryable, well before the command timeout: never after waiting it out.
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install } from '../../src/connection/fence.js';
import { type AdmissionResult, type Connection, EmqError, enqueueMany } from '../../src/index.js';
import { connectTo, jobsOf, startFencedServer } from '../support/emq.js';
import {
  type ReplicatedHandle,
  randomQueue,
  type ServerHandle,
  startReplicated,
} from '../support/servers.js';
import { waitFor } from '../support/wait.js';

/** Long, so that waiting it out and settling at once cannot be mistaken for each other. */
const COMMAND_TIMEOUT_MS = 5_000;
/** The pause holds the first write and then the resend; it ends well inside the timeout. */
const PAUSE_MS = 1_000;

let standalone: ServerHandle;
let pair: ReplicatedHandle;

beforeAll(async () => {
  [standalone, pair] = await Promise.all([
    startFencedServer(),
    startReplicated({ module: true, replicas: 1 }),
  ]);
  await install(await connectTo(pair.primary, { checkFence: false }));
  await pair.waitForSync();
});

afterAll(async () => {
  await Promise.all([standalone?.stop(), pair?.stop()]);
});

/** Holds writes, starts an admission, kills its connection while the write is held. */
async function killedWhileHeld(
  conn: Connection,
  admin: Valkey,
  request: { queue: string; idempotencyKey?: string },
): Promise<{ result: AdmissionResult; settledMs: number; resentMs: number | undefined }> {
  const id = String(await conn.client.call('CLIENT', 'ID'));
  await admin.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'WRITE');
  const sends: number[] = [];
  const admitted = enqueueMany(conn, [{ ...request, payload: 'held' }], {
    onSend: () => sends.push(performance.now()),
  });
  // The server shows the paused client blocked (flags=b) once it holds the write.
  await waitFor('the write to be held', 10_000, async () => {
    const line = String(await admin.call('CLIENT', 'LIST', 'ID', id));
    return /\bflags=\S*b/.test(line) ? undefined : line;
  });
  await admin.call('CLIENT', 'KILL', 'ID', id);
  const killedAt = performance.now();
  const [result] = await admitted;
  // From the first send: a call that waits out its command timeout cannot settle sooner.
  const settledMs = performance.now() - (sends[0] as number);
  const resent = sends[1];
  return {
    result: result as AdmissionResult,
    settledMs,
    resentMs: resent === undefined ? undefined : resent - killedAt,
  };
}

describe.each([
  ['standalone server', () => standalone, 0],
  ["replicated pair's primary, acks 1", () => pair.primary, 1],
] as const)('a killed connection on a %s', (_, target, ackReplicas) => {
  describe.each(['native', 'function'] as const)('%s family', (family) => {
    let conn: Connection;
    let admin: Valkey;
    beforeAll(async () => {
      conn = await connectTo(target(), {
        family,
        ackReplicas,
        ackTimeoutMs: 2_000,
        commandTimeoutMs: COMMAND_TIMEOUT_MS,
      });
      admin = await target().client();
    });
    afterAll(() => admin?.disconnect());

    it.each([
      ['keyed', 'order-1'],
      ['keyless', undefined],
    ])('%s: the call settles well before the command timeout, one job', async (kind, key) => {
      const queue = randomQueue('killed');
      const { result, settledMs, resentMs } = await killedWhileHeld(conn, admin, {
        queue,
        ...(key === undefined ? {} : { idempotencyKey: key }),
      });
      // The resend follows the kill by the reconnect; the call ends when the pause lets it run.
      const resent = resentMs === undefined ? 'not resent' : `resent ${Math.round(resentMs)} ms`;
      console.log(
        `${family}, acks ${ackReplicas}, ${kind}: ${resent}, settled ${Math.round(settledMs)} ms after the first send`,
      );
      expect(settledMs).toBeLessThan(COMMAND_TIMEOUT_MS);
      await admin.call('CLIENT', 'UNPAUSE');
      const jobs = await jobsOf(conn, queue);
      if (result instanceof EmqError) {
        expect(result.retryable).toBe(true);
        expect(jobs.rows.length).toBeLessThanOrEqual(1);
      } else {
        expect(result.status).toBe('enqueued');
        expect(jobs).toEqual({ rows: [result.id], pending: [result.id] });
      }
    });
  });
});
