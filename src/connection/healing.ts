/**
 * A warm container's connection through Lambda's lifecycle. Between invocations the process is
 * frozen: no timer runs, no socket event is read, and the server may close the connection or change
 * its topology meanwhile. So an admission (src/admission/admission.ts) asks here, not the client's
 * state at face value: it reads the slot map again on first use after a gap, waits for a connection
 * that is reconnecting instead of failing at once, and before sending a call again after a failure
 * that a reconnect mends, waits for the reconnect (and a fresh slot map).
 */
import { Cluster, type Valkey } from 'iovalkey';
import { refreshTopology } from './transport.js';

/**
 * Unused this long, a container may have been frozen through a failover: its next use reads
 * the slot map again (without waiting for it; a stale map is mended by the MOVED that follows).
 */
const TOPOLOGY_GAP_MS = 10_000;

const lastUse = new WeakMap<Valkey | Cluster, number>();

/** Notes a use of `client`; after a gap, reads a cluster's slot map again in the background. */
export function noteUse(client: Valkey | Cluster): void {
  // The monotonic clock goes on while a process is stopped: the gap includes a freeze.
  const now = performance.now();
  const last = lastUse.get(client);
  lastUse.set(client, now);
  if (client instanceof Cluster && last !== undefined && now - last > TOPOLOGY_GAP_MS) {
    client.refreshSlotsCache();
  }
}

/**
 * Waits until `client` takes commands, until `untilMs` (Date.now() time) at the latest.
 * Resolves true when it is ready, false when it was not in time or was closed for good.
 */
export function whenReady(client: Valkey | Cluster, untilMs: number): Promise<boolean> {
  if (takesCommands(client)) return Promise.resolve(true);
  if (client.status === 'end') return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      client.off('ready', ready);
      client.off('end', ended);
      resolve(ok);
    };
    const ready = () => done(true);
    const ended = () => done(false);
    const timer = setTimeout(() => done(false), Math.max(0, untilMs - Date.now()));
    client.once('ready', ready);
    client.once('end', ended);
  });
}

/**
 * Ready, and (standalone) its socket still writable: a socket the server ended while the
 * process was frozen reads as ready until its close event, which comes after the thaw.
 */
function takesCommands(client: Valkey | Cluster): boolean {
  if (client.status !== 'ready') return false;
  return client instanceof Cluster || client.stream?.writable !== false;
}

/**
 * After a failure a reconnect mends: a cluster's slot map read again (it names a promoted
 * replica, a moved slot), then the client ready. Resolves true when both happened in time.
 */
export async function healed(client: Valkey | Cluster, untilMs: number): Promise<boolean> {
  if (client instanceof Cluster && !(await refreshTopology(client, untilMs - Date.now()))) {
    return false;
  }
  return whenReady(client, untilMs);
}
