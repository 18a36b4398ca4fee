import { createServer, type Server } from 'node:net';

export const LOOPBACK = '127.0.0.1';

// A cluster node also listens on port + 10000 (its bus), which must be a valid, free port too.
export const BUS_OFFSET = 10_000;
const MAX_ATTEMPTS_PER_PORT = 50;

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

/**
 * Asks the OS for ports that are free right now. Every candidate stays bound until all are
 * chosen, so one call never returns the same port twice nor a port that is another's bus port;
 * another process can still take one before the server binds it, which the caller retries.
 */
export async function freePorts(
  count: number,
  options: { clusterBus?: boolean; avoid?: ReadonlySet<number> } = {},
): Promise<number[]> {
  const held: Server[] = [];
  const ports: number[] = [];
  try {
    for (let attempt = 0; ports.length < count; attempt++) {
      if (attempt >= count * MAX_ATTEMPTS_PER_PORT) {
        throw new Error(`could not find ${count} free loopback ports`);
      }
      const server = await listen(0);
      if (!server) continue;
      held.push(server);
      const address = server.address();
      if (address === null || typeof address === 'string') continue;
      if (options.avoid?.has(address.port)) continue;
      if (options.clusterBus) {
        if (address.port + BUS_OFFSET > 65_535) continue;
        const bus = await listen(address.port + BUS_OFFSET);
        if (!bus) continue;
        held.push(bus);
      }
      ports.push(address.port);
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
