import { afterAll } from 'vitest';

/** What the registry needs from a started server to clean up after it. */
export interface Tracked {
  stop(): Promise<void>;
  /** Synchronous, for process exit: SIGKILL the process and remove its data dir. */
  killNow(): void;
}

// One registry per process: test files re-evaluate this module, but exit hooks must be
// installed once and must see the servers of every file that ran in this worker.
const registryKey = Symbol.for('echomq.test.valkey-registry');
type Holder = typeof globalThis & { [registryKey]?: Set<Tracked> };

function live(): Set<Tracked> {
  const holder: Holder = globalThis;
  let servers = holder[registryKey];
  if (servers === undefined) {
    servers = new Set();
    holder[registryKey] = servers;
    installProcessHooks(servers);
  }
  return servers;
}

function installProcessHooks(servers: Set<Tracked>): void {
  const killAll = (): void => {
    for (const server of servers) server.killNow();
    servers.clear();
  };
  process.on('exit', killAll);
  // Vitest ends its fork workers with SIGTERM, which skips 'exit' handlers; kill the servers,
  // then let the signal do what it would have done without this listener.
  process.once('SIGTERM', () => {
    killAll();
    if (process.listenerCount('SIGTERM') === 0) process.kill(process.pid, 'SIGTERM');
  });
}

export function track(server: Tracked): void {
  live().add(server);
}

export function untrack(server: Tracked): void {
  live().delete(server);
}

/** Stops every server this process started and has not stopped yet. */
export async function stopAll(): Promise<void> {
  const results = await Promise.allSettled([...live()].map((server) => server.stop()));
  const failures = results.flatMap((result) =>
    result.status === 'rejected' ? [result.reason] : [],
  );
  if (failures.length > 0) throw new AggregateError(failures, 'stopAll: some servers did not stop');
}

// Importing the harness from a test file is enough: a test that throws before its own
// cleanup still leaves no server behind once the file ends.
if (process.env.VITEST) afterAll(stopAll);
