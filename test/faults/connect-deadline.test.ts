// Opening a cluster connection while a primary is stopped and the others say cluster_state:fail
// (docs/reliability.md, "Outcomes"): the caller hears a retryable "unavailable" within the connect
// timeout. iovalkey's Cluster#connect() promise is never settled when its ready check fails after
// the slot map was read: it reconnects on its own and the caller's await waited forever.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connect, EmqError } from '../../src/index.js';
import { type ClusterHandle, type ServerHandle, startCluster } from '../support/servers.js';
import { waitFor } from '../support/wait.js';

const NODE_TIMEOUT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 1_000;
/** What answering takes once the connect deadline has fired: closing the sockets it opened. */
const CLOSE_MS = 2_000;
/** Far past the connect timeout: an answer later than this is a hang, not slowness. */
const HANG_MS = 15_000;

let cluster: ClusterHandle;
let stopped: ServerHandle;
let live: ServerHandle[];

beforeAll(async () => {
  cluster = await startCluster({ nodeTimeoutMs: NODE_TIMEOUT_MS });
  const [first, ...rest] = await cluster.primaries();
  if (first === undefined || rest.length === 0) throw new Error('expected 3 primaries');
  stopped = first;
  live = rest;
  await stopped.kill('SIGSTOP');
  // The live primaries mark the stopped one failed, and the cluster as failed with it.
  const probe = await (live[0] as ServerHandle).client();
  try {
    await waitFor('cluster_state:fail on a live primary', 30_000, async () => {
      const info = String(await probe.call('CLUSTER', 'INFO'));
      return /cluster_state:fail/.test(info) ? undefined : 'cluster_state still ok';
    });
  } finally {
    probe.disconnect();
  }
});

afterAll(async () => {
  if (stopped?.running) await stopped.kill('SIGCONT');
  await cluster?.stop();
});

/** The promise's outcome, or 'hung' when it has none within `ms`. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ value }),
        (error: unknown) => error,
      ),
      hung,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

// iovalkey prints an error event nobody listens to, with its stack and the node's address, to
// stderr: a node hanging during connect must produce none (the connector handles every one).
const printed = vi.spyOn(console, 'error');
afterAll(() => printed.mockRestore());

describe('connecting to a failed cluster', () => {
  it.each([200, 2_000])(
    'answers retry within the connect timeout (command timeout %i ms)',
    async (commandTimeoutMs) => {
      const started = performance.now();
      // The machine's own timer for the same deadline: on a loaded machine every timer fires
      // late, the connector's too, so the bound is this timer's firing, not the nominal time.
      const deadlineFired = new Promise<number>((resolve) => {
        setTimeout(() => resolve(performance.now() - started), CONNECT_TIMEOUT_MS);
      });
      const outcome = await settledWithin(
        connect({
          urls: live.map((node) => node.url),
          cluster: true,
          commandTimeoutMs,
          connectTimeoutMs: CONNECT_TIMEOUT_MS,
        }),
        HANG_MS,
      );
      const waitedMs = performance.now() - started;
      const firedMs = await deadlineFired;
      console.info(
        `connect to a failed cluster: answered after ${Math.round(waitedMs)} ms; a ${CONNECT_TIMEOUT_MS} ms timer fired after ${Math.round(firedMs)} ms`,
      );
      expect(outcome).toBeInstanceOf(EmqError);
      expect(outcome).toMatchObject({ code: 'EMQ_UNAVAILABLE', retryable: true });
      // The deadline as this machine keeps it, plus the closing of the connection's sockets:
      // never a second command timeout or a reconnect cycle, never the hang bound.
      expect(waitedMs).toBeLessThan(firedMs + CLOSE_MS);
    },
  );

  it('prints nothing of iovalkey to stderr while a node hangs', () => {
    expect(printed.mock.calls.filter((call) => String(call[0]).includes('[ioredis]'))).toEqual([]);
  });
});
