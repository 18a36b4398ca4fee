/** Port choice: the well-known port when it is free, else one the OS picks. */
import { createServer } from 'node:net';

export const LOOPBACK = '127.0.0.1';

/** A cluster node also listens on its port + 10000 (the cluster bus). */
export const BUS_OFFSET = 10_000;

/** True when nothing listens on `port` at 127.0.0.1 right now. */
export function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: LOOPBACK, exclusive: true }, () =>
      server.close(() => resolve(true)),
    );
  });
}

/** A port free right now, with its bus port free too when `bus` is set. */
export async function freePort(
  bus: boolean,
  avoid: ReadonlySet<number> = new Set(),
): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await osPort();
    if (
      avoid.has(port) ||
      (bus && (port + BUS_OFFSET > 65_535 || !(await isFree(port + BUS_OFFSET))))
    ) {
      continue;
    }
    return port;
  }
  throw new Error('Could not find a free port on 127.0.0.1.');
}

function osPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port: 0, host: LOOPBACK, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** `count` consecutive ports from `first`. */
export function portRun(first: number, count: number): number[] {
  return Array.from({ length: count }, (_, index) => first + index);
}

/**
 * The Valkey ports: exactly the asked ones (refused when taken), else the defaults when they
 * are all free, else free ports. `bus`: each port's +10000 must be free too (a cluster).
 */
export async function chooseValkeyPorts(
  asked: readonly number[] | undefined,
  defaults: readonly number[],
  bus: boolean,
): Promise<{ ports: number[]; chosen: 'asked' | 'default' | 'free' }> {
  const allFree = async (ports: readonly number[]) => {
    for (const port of ports) {
      if (bus && port + BUS_OFFSET > 65_535) return false;
      if (!(await isFree(port)) || (bus && !(await isFree(port + BUS_OFFSET)))) return false;
    }
    return true;
  };
  if (asked !== undefined) {
    if (!(await allFree(asked))) {
      const what = bus
        ? `ports ${asked.join(', ')} (and their bus ports +${BUS_OFFSET})`
        : `port ${asked.join(', ')}`;
      throw new Error(`Valkey ${what} must be free on ${LOOPBACK}; something listens there.`);
    }
    return { ports: [...asked], chosen: 'asked' };
  }
  if (await allFree(defaults)) return { ports: [...defaults], chosen: 'default' };
  const ports: number[] = [];
  while (ports.length < defaults.length) ports.push(await freePort(bus, new Set(ports)));
  return { ports, chosen: 'free' };
}
