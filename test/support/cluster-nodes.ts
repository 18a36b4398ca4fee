/** One line of CLUSTER NODES, reduced to what the harness checks. */
export interface ClusterNodeEntry {
  readonly id: string;
  /** Undefined while the node's address is not known yet. */
  readonly port: number | undefined;
  readonly flags: readonly string[];
  /** Slot ranges it serves, e.g. `0-5460`; empty for a replica. */
  readonly slots: readonly string[];
}

export function parseClusterNodes(text: string): ClusterNodeEntry[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id = '', address = '', flags = '', , , , , , ...slots] = line.trim().split(' ');
      // `ip:port@busport[,hostname]`; the port is 0 until the node has been met.
      const hostPort = address.split('@')[0] ?? '';
      const port = Number(hostPort.slice(hostPort.lastIndexOf(':') + 1));
      return {
        id,
        port: Number.isInteger(port) && port > 0 ? port : undefined,
        flags: flags.split(','),
        // `[slot->-id]` entries are migrations in flight, not ownership.
        slots: slots.filter((slot) => !slot.startsWith('[')),
      };
    });
}

const UNHEALTHY = ['fail', 'fail?', 'handshake', 'noaddr'];

export function isLivePrimary(entry: ClusterNodeEntry): boolean {
  return entry.flags.includes('master') && !entry.flags.some((flag) => UNHEALTHY.includes(flag));
}

/** Which primary owns which slots, in a form two nodes' views can be compared by. */
export function slotOwnership(entries: readonly ClusterNodeEntry[]): string {
  return entries
    .flatMap((entry) => entry.slots.map((range) => `${range}=${entry.id}`))
    .sort()
    .join(' ');
}
