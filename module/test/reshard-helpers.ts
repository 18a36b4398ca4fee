// The reshard tests' cluster and steps (reshard.test.ts): moving slots with the real
// valkey-cli, loading queues, and the checks after a move.
import calculateSlot from 'cluster-key-slot';
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, expect } from 'vitest';
import { runValkeyCli } from '../../scripts/valkey/cli.js';
import { type ClusterHandle, startCluster } from '../../test/support/servers.js';
import { waitFor } from '../../test/support/wait.js';
import { fencedPrimaries, ownerPort, type Primary, queueOn } from './cluster-helpers.js';
import { admitMany, jobId } from './helpers.js';

export const FENCE_SLOT = 9051;
let cluster: ClusterHandle;
/** The cluster's primaries (set by useReshardCluster). */
export let primaries: Primary[];
const ids = new Map<string, string>();
let serial = 0;

/**
 * A 3-primary cluster loading the module, the fence installed on each, slot 9051 made its
 * owner's lowest (valkey-cli moves a source's lowest slots).
 */
export function useReshardCluster(): void {
  beforeAll(async () => {
    cluster = await startCluster({ primaries: 3, module: true });
    primaries = await fencedPrimaries(cluster);
    // valkey-cli moves a source's lowest slots: make 9051 its owner's lowest (5461..9050 are
    // empty yet, so this is quick), so that a 1-slot reshard moves exactly 9051.
    const owner = await slotOwner(FENCE_SLOT);
    const lowest = await lowestSlot(owner);
    if (lowest < FENCE_SLOT) {
      const other = primaries.find((p) => p !== owner) as Primary;
      await reshard(owner, other, FENCE_SLOT - lowest, false);
    }
    expect(await lowestSlot(owner)).toBe(FENCE_SLOT);
  }, 300_000);
  afterAll(() => cluster?.stop());
}

/** The running cluster. */
export function theCluster(): ClusterHandle {
  return cluster;
}

export async function nodeId(p: Primary): Promise<string> {
  return String(await p.client.call('CLUSTER', 'MYID'));
}

export async function slotOwner(slot: number): Promise<Primary> {
  const port = await ownerPort(primaries[0]?.client as Valkey, slot);
  const owner = primaries.find((p) => p.node.port === port);
  if (owner === undefined) throw new Error(`no primary serves slot ${slot}`);
  return owner;
}

export async function lowestSlot(p: Primary): Promise<number> {
  const ranges = (await p.client.call('CLUSTER', 'SLOTS')) as Array<
    [number, number, [string, number]]
  >;
  const mine = ranges.filter((range) => range[2][1] === p.node.port).map((range) => range[0]);
  return Math.min(...mine);
}

/** `valkey-cli --cluster reshard` of the source's `slots` lowest slots; its output. */
export async function reshard(
  from: Primary,
  to: Primary,
  slots: number,
  replace: boolean,
): Promise<string> {
  const args = [
    '--cluster',
    'reshard',
    `${from.node.host}:${from.node.port}`,
    '--cluster-from',
    await nodeId(from),
    '--cluster-to',
    await nodeId(to),
    '--cluster-slots',
    String(slots),
    '--cluster-yes',
    ...(replace ? ['--cluster-replace'] : []),
  ];
  const out = await runValkeyCli(args, 240_000);
  await cluster.waitForHealthy();
  return out;
}

/** A queue name whose slot is `slot`. */
export function queueIn(slot: number, prefix: string): string {
  for (let i = 0; ; i++) {
    const name = `${prefix}-${i}`;
    if (calculateSlot(name) === slot) return name;
  }
}

/** Admits `count` new keys into `queue` on its owner; remembers each key's id. */
export async function load(queue: string, count: number): Promise<void> {
  const owner = await slotOwner(calculateSlot(queue));
  for (let done = 0; done < count; done += 10) {
    const admissions = Array.from({ length: 10 }, () => {
      serial += 1;
      return { id: jobId(serial), key: `${queue}/${serial}`, payload: `payload ${serial}` };
    });
    const reply = await admitMany(owner.client, queue, admissions);
    expect(reply).toEqual(admissions.map((a) => [1, a.id]));
    for (const a of admissions) ids.set(a.key, a.id);
  }
}

/** Every primary holds its own copy and admits on a queue it serves. */
export async function fencesHold(label: string): Promise<void> {
  for (const p of primaries) {
    await waitFor(`${label}: ${p.node.url} holds its copy`, 20_000, async () => {
      const wire = JSON.stringify(await p.client.call('EMQ.WIRE'));
      return wire === '["1","1"]' ? undefined : wire;
    });
    const queue = await queueOn(p.client, p.node.port, 'after');
    serial += 1;
    expect(
      await admitMany(p.client, queue, [{ id: jobId(serial), key: 'k', payload: 'p' }]),
    ).toEqual([[1, jobId(serial)]]);
  }
}

/** Every key of `queue` is on `owner`: each key's replay names its first id. */
export async function nothingLost(queue: string, owner: Primary): Promise<void> {
  const keys = [...ids.keys()].filter((key) => key.startsWith(`${queue}/`));
  expect(keys.length).toBeGreaterThan(0);
  for (let i = 0; i < keys.length; i += 50) {
    const batch = keys.slice(i, i + 50);
    const reply = await admitMany(
      owner.client,
      queue,
      batch.map((key) => ({
        id: jobId(900_000 + i),
        key,
        payload: `payload ${ids.get(key)?.slice(3)}`,
      })),
    );
    expect(reply).toEqual(batch.map((key) => [expect.any(Number), ids.get(key)]));
  }
  const rows = Number(await owner.client.call('ZCARD', `emq:{${queue}}:pending`));
  expect(rows).toBe(keys.length);
}

/** The slot's keys: on the new owner all of them, and one on every other primary: its copy. */
export async function slotKeysAfter(slot: number, owner: Primary, moved: number): Promise<void> {
  for (const p of primaries) {
    const fence = slot === FENCE_SLOT ? 1 : 0;
    await waitFor(`${p.node.url}'s keys in slot ${slot}`, 20_000, async () => {
      const count = Number(await p.client.call('CLUSTER', 'COUNTKEYSINSLOT', String(slot)));
      const expected = p === owner ? moved + fence : fence;
      return count === expected ? undefined : `${count}, expected ${expected}`;
    });
    expect(String(await p.client.call('CLUSTER', 'NODES'))).not.toMatch(/\[\d+-[<>]-/);
  }
}

export async function movedKeys(queue: string): Promise<number> {
  const owner = await slotOwner(calculateSlot(queue));
  return Number(
    await owner.client.call('CLUSTER', 'COUNTKEYSINSLOT', String(calculateSlot(queue))),
  );
}
