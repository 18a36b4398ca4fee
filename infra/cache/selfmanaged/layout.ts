/**
 * Where each node of the self-managed cluster lives: its shard, its subnet (so its AZ) and its
 * fixed private address. Plain arithmetic, so the template and the node scripts agree on it.
 *
 * Node `i` belongs to shard `i % shards`; nodes `0 .. shards-1` start as the primaries, the rest
 * as their replicas (the order cluster-create.sh follows). A shard's nodes go to consecutive
 * AZs, so a primary and its replicas never share an AZ while there are AZs enough.
 */

export interface NodePlacement {
  readonly index: number;
  readonly shard: number;
  /** 0 for the node that starts as the shard's primary. */
  readonly replica: number;
  /** Position in the subnet list, one subnet per AZ. */
  readonly subnet: number;
  /** The fixed private IPv4 address of the node. */
  readonly address: string;
}

/** Addresses start here in each subnet: AWS keeps the first four, and a margin is cheap. */
export const FIRST_HOST = 10;

/** Nodes in order of index, or an Error naming what does not fit. */
export function placeNodes(
  shards: number,
  replicasPerShard: number,
  subnetCidrs: readonly string[],
): NodePlacement[] {
  if (subnetCidrs.length === 0) throw new Error('the cluster needs at least one subnet');
  const count = shards * (replicasPerShard + 1);
  return Array.from({ length: count }, (_, index) => {
    const shard = index % shards;
    const replica = Math.floor(index / shards);
    const subnet = (shard + replica) % subnetCidrs.length;
    return {
      index,
      shard,
      replica,
      subnet,
      address: hostAddress(subnetCidrs[subnet] ?? '', index),
    };
  });
}

/** The address FIRST_HOST + offset inside an IPv4 CIDR block. */
export function hostAddress(cidr: string, offset: number): string {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr);
  if (match === null) throw new Error(`'${cidr}' is not an IPv4 CIDR block known at synthesis`);
  const octets = match.slice(1, 5).map(Number);
  const bits = Number(match[5]);
  const base = octets.reduce((value, octet) => value * 256 + octet, 0);
  const host = FIRST_HOST + offset;
  // AWS keeps the last address of a subnet too.
  if (host >= 2 ** (32 - bits) - 1) {
    throw new Error(`subnet ${cidr} is too small for node address offset ${host}`);
  }
  const value = base + host;
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}
