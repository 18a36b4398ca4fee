import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

export const LOOPBACK = '127.0.0.1';

// A cluster node also listens on port + 10000 (its bus), which must be a valid, free port too.
export const BUS_OFFSET = 10_000;
const MAX_ATTEMPTS_PER_PORT = 50;
const LOWEST_PORT = 10_000;
// Where the kernel's ephemeral range starts when /proc does not say (Linux's default).
const DEFAULT_EPHEMERAL_START = 32_768;

/**
 * Server ports are drawn below the kernel's ephemeral range, never from it. Why: a port the
 * OS hands out for `listen(0)` is free now, but every outgoing connection on the machine (five
 * engineers' tests, each with hundreds of clients) also takes its local port from that range,
 * so in the seconds between the probe and the server's bind another process could take it
 * ("Address already in use"). Below the range only listeners compete, and a random draw keeps
 * parallel test workers apart.
 */
function ephemeralStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/);
    const start = Number(low);
    return Number.isInteger(start) && start > LOWEST_PORT + BUS_OFFSET
      ? start
      : DEFAULT_EPHEMERAL_START;
  } catch {
    return DEFAULT_EPHEMERAL_START;
  }
}

function listen(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen({ port, host: LOOPBACK, exclusive: true }, () => resolve(server));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A random port below the ephemeral range; with room for its bus port below it too. */
function candidate(clusterBus: boolean): number {
  const highest = ephemeralStart() - 1 - (clusterBus ? BUS_OFFSET : 0);
  return LOWEST_PORT + Math.floor(Math.random() * (highest - LOWEST_PORT + 1));
}

/**
 * Ports that are free right now. Every candidate stays bound until all are chosen, so one call
 * never returns the same port twice nor a port that is another's bus port; another process can
 * still take one before the server binds it, which the caller retries.
 */
export async function freePorts(
  count: number,
  options: { clusterBus?: boolean; avoid?: ReadonlySet<number> } = {},
): Promise<number[]> {
  const held: Server[] = [];
  const ports: number[] = [];
  const bus = options.clusterBus ?? false;
  try {
    for (let attempt = 0; ports.length < count; attempt++) {
      if (attempt >= count * MAX_ATTEMPTS_PER_PORT) {
        throw new Error(`could not find ${count} free loopback ports`);
      }
      const port = candidate(bus);
      if (options.avoid?.has(port)) continue;
      const server = await listen(port);
      if (!server) continue;
      held.push(server);
      if (bus) {
        const busServer = await listen(port + BUS_OFFSET);
        if (!busServer) continue;
        held.push(busServer);
      }
      ports.push(port);
    }
    return ports;
  } finally {
    await Promise.all(held.map(close));
  }
}

/** True when nothing listens on `port` at 127.0.0.1 right now. */
export async function isFree(port: number): Promise<boolean> {
  const server = await listen(port);
  if (server === undefined) return false;
  await close(server);
  return true;
}

export async function freePort(
  options: { clusterBus?: boolean; avoid?: ReadonlySet<number> } = {},
): Promise<number> {
  const [port] = await freePorts(1, options);
  if (port === undefined) throw new Error('freePorts returned no port');
  return port;
}
