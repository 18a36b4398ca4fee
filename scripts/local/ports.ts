/** Port choice: the well-known port when it is free, else one the OS picks. */
import { BUS_OFFSET, freePort, isFree, LOOPBACK } from '../valkey/ports.js';

// The free-port probe is the one the test harness and the bench use.
export { BUS_OFFSET, freePort, isFree, LOOPBACK } from '../valkey/ports.js';

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
  while (ports.length < defaults.length)
    ports.push(await freePort({ clusterBus: bus, avoid: new Set(ports) }));
  return { ports, chosen: 'free' };
}
