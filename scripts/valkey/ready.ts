import { infoField, type ProbeAuth, type ProbeTarget, withProbe } from './probe.js';
import { waitFor } from './wait.js';

/**
 * Waits until the server on `port` answers PING with its data loaded (a server replaying an
 * append-only file answers PING with -LOADING first). `exited` ends the wait at once with the
 * reason the process died, instead of polling a dead port until the timeout.
 */
export function waitUntilServing(
  port: number,
  options: {
    readonly auth?: ProbeAuth | undefined;
    readonly timeoutMs: number;
    readonly exited: Promise<string>;
    readonly what: string;
    /** The server's process id: the port must be answered by this process, not another's. */
    readonly pid?: number | undefined;
  },
): Promise<void> {
  return waitFor(
    `${options.what} to answer PING with its data loaded`,
    options.timeoutMs,
    () => servingState(port, options.auth, options.pid),
    options.exited.then((how) => new Error(`${options.what} exited (${how}) before it was ready`)),
  );
}

/**
 * Undefined once the server serves, else why not yet. With `pid`, the server that answers must
 * be that process: where another process took the port first (a race between the free-port
 * probe and the bind), its server would otherwise pass for ours until ours exits.
 */
export function servingState(
  target: ProbeTarget,
  auth: ProbeAuth | undefined,
  pid?: number,
): Promise<string | undefined> {
  return withProbe(target, auth, async (connection) => {
    const pong = await connection.ping();
    if (pong !== 'PONG') return `PING answered ${pong}`;
    if (pid !== undefined) {
      const answering = infoField(await connection.info('server'), 'process_id');
      if (answering !== String(pid))
        return `the port is answered by process ${answering}, not ${pid}`;
    }
    const info = await connection.info('persistence');
    const loading = /\r?\nloading:(\d)/.exec(`\n${info}`)?.[1];
    return loading === '0' ? undefined : `loading:${loading}`;
  });
}
