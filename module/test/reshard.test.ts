// Moving slot 9051 ({emq}:version's) the ordinary way (SPEC §6): `valkey-cli --cluster reshard`
// (CLUSTER SETSLOT IMPORTING/MIGRATING, MIGRATE ... KEYS, CLUSTER SETSLOT NODE), with and
// without --cluster-replace, the same procedure by hand, and a move abandoned half-way. After
// each: the slot's owner changed, every key of the slot reached the target, every primary holds
// its own copy (EMQ.WIRE) and admits on queues it serves, and a replay of each key on the moved
// queue names its first id. A normal queue slot moves the same way. Runs on 8.0.1 and 9.1.2.
import calculateSlot from 'cluster-key-slot';
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runValkeyCli } from '../../scripts/valkey/cli.js';
import { type ClusterHandle, startCluster } from '../../test/support/servers.js';
import { waitFor } from '../../test/support/wait.js';
import { fencedPrimaries, ownerPort, type Primary, queueOn } from './cluster-helpers.js';
import { admitMany, jobId } from './helpers.js';

const FENCE_SLOT = 9051;
let cluster: ClusterHandle;
let primaries: Primary[];
const ids = new Map<string, string>();
let serial = 0;

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

async function nodeId(p: Primary): Promise<string> {
  return String(await p.client.call('CLUSTER', 'MYID'));
}

async function slotOwner(slot: number): Promise<Primary> {
  const port = await ownerPort(primaries[0]?.client as Valkey, slot);
  const owner = primaries.find((p) => p.node.port === port);
  if (owner === undefined) throw new Error(`no primary serves slot ${slot}`);
  return owner;
}

async function lowestSlot(p: Primary): Promise<number> {
  const ranges = (await p.client.call('CLUSTER', 'SLOTS')) as Array<
    [number, number, [string, number]]
  >;
  const mine = ranges.filter((range) => range[2][1] === p.node.port).map((range) => range[0]);
  return Math.min(...mine);
}

/** `valkey-cli --cluster reshard` of the source's `slots` lowest slots; its output. */
async function reshard(
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
function queueIn(slot: number, prefix: string): string {
  for (let i = 0; ; i++) {
    const name = `${prefix}-${i}`;
    if (calculateSlot(name) === slot) return name;
  }
}

/** Admits `count` new keys into `queue` on its owner; remembers each key's id. */
async function load(queue: string, count: number): Promise<void> {
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
async function fencesHold(label: string): Promise<void> {
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
async function nothingLost(queue: string, owner: Primary): Promise<void> {
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
async function slotKeysAfter(slot: number, owner: Primary, moved: number): Promise<void> {
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

async function movedKeys(queue: string): Promise<number> {
  const owner = await slotOwner(calculateSlot(queue));
  return Number(
    await owner.client.call('CLUSTER', 'COUNTKEYSINSLOT', String(calculateSlot(queue))),
  );
}

describe('valkey-cli --cluster reshard', () => {
  const fenceQueue = queueIn(FENCE_SLOT, 'f');

  it('moves slot 9051 without --cluster-replace: every copy stays, every key moves', async () => {
    await load(fenceQueue, 200);
    const source = await slotOwner(FENCE_SLOT);
    const keys = (await movedKeys(fenceQueue)) - 1; // less the source's own copy
    const target =
      primaries.find((p) => p !== source && p !== primaries[0]) ?? (primaries[0] as Primary);
    const out = await reshard(source, target, 1, false);
    expect(out).toMatch(/Moving slot 9051 from/);
    expect(out).not.toMatch(/BUSYKEY|Target key exists|ERR/);
    expect(await slotOwner(FENCE_SLOT)).toBe(target);
    await slotKeysAfter(FENCE_SLOT, target, keys);
    await fencesHold('after the reshard');
    await nothingLost(fenceQueue, target);
  });

  it('moves it on with --cluster-replace: the same, no copy replaced or lost', async () => {
    await load(fenceQueue, 50);
    const source = await slotOwner(FENCE_SLOT);
    const keys = (await movedKeys(fenceQueue)) - 1;
    const target = primaries.find((p) => p !== source) as Primary;
    expect(await lowestSlot(source)).toBe(FENCE_SLOT);
    await reshard(source, target, 1, true);
    expect(await slotOwner(FENCE_SLOT)).toBe(target);
    await slotKeysAfter(FENCE_SLOT, target, keys);
    await fencesHold('after the reshard with replace');
    await nothingLost(fenceQueue, target);
  });

  it('moves a normal queue slot, with and without --cluster-replace', async () => {
    for (const replace of [false, true]) {
      const source = primaries[0] as Primary;
      const slot = await lowestSlot(source);
      const queue = queueIn(slot, replace ? 'r' : 'n');
      await load(queue, 30);
      const keys = await movedKeys(queue);
      const target = primaries[1] as Primary;
      await reshard(source, target, 1, replace);
      expect(await slotOwner(slot)).toBe(target);
      await slotKeysAfter(slot, target, keys);
      await fencesHold(`after moving slot ${slot}`);
      await nothingLost(queue, target);
    }
  });
});

describe('the same procedure by hand', () => {
  it('MIGRATE naming {emq}:version (KEYS, REPLACE, the one-key form) never moves a copy', async () => {
    const source = await slotOwner(FENCE_SLOT);
    const target = primaries.find((p) => p !== source) as Primary;
    const queue = queueIn(FENCE_SLOT, 'f');
    const [sourceId, targetId] = [await nodeId(source), await nodeId(target)];
    expect(
      await target.client.call('CLUSTER', 'SETSLOT', String(FENCE_SLOT), 'IMPORTING', sourceId),
    ).toBe('OK');
    expect(
      await source.client.call('CLUSTER', 'SETSLOT', String(FENCE_SLOT), 'MIGRATING', targetId),
    ).toBe('OK');
    const host = target.node.host;
    const port = String(target.node.port);
    expect(await source.client.call('MIGRATE', host, port, '{emq}:version', '0', '5000')).toBe(
      'NOKEY',
    );
    expect(
      await source.client.call(
        'MIGRATE',
        host,
        port,
        '',
        '0',
        '5000',
        'REPLACE',
        'KEYS',
        '{emq}:version',
      ),
    ).toBe('NOKEY');
    // Every key of the slot, the fence named too, in one MIGRATE with REPLACE.
    const keys = [`emq:{${queue}}:pending`, '{emq}:version'];
    for (;;) {
      const batch = (await source.client.call(
        'CLUSTER',
        'GETKEYSINSLOT',
        String(FENCE_SLOT),
        '100',
      )) as string[];
      expect(batch).not.toContain('{emq}:version'); // parked while the slot migrates away
      if (batch.length === 0) break;
      expect(
        await source.client.call(
          'MIGRATE',
          host,
          port,
          '',
          '0',
          '5000',
          'REPLACE',
          'KEYS',
          ...batch,
          ...keys,
        ),
      ).toBe('OK');
    }
    expect(await source.client.call('EMQ.WIRE')).toEqual(['1', '1']);
    for (const p of [target, source, ...primaries.filter((x) => x !== source && x !== target)]) {
      expect(await p.client.call('CLUSTER', 'SETSLOT', String(FENCE_SLOT), 'NODE', targetId)).toBe(
        'OK',
      );
    }
    await cluster.waitForHealthy();
    await slotKeysAfter(FENCE_SLOT, target, (await movedKeys(queue)) - 1);
    await fencesHold('after the manual move');
    await nothingLost(queue, target);
  });

  it('a source whose own copy cannot be parked (a TTL) refuses SETSLOT MIGRATING: nothing moves', async () => {
    const source = await slotOwner(FENCE_SLOT);
    const target = primaries.find((p) => p !== source) as Primary;
    expect(await source.client.pexpire('{emq}:version', 600_000)).toBe(1);
    try {
      const before = await source.client.call('CLUSTER', 'COUNTKEYSINSLOT', String(FENCE_SLOT));
      await expect(
        source.client.call(
          'CLUSTER',
          'SETSLOT',
          String(FENCE_SLOT),
          'MIGRATING',
          await nodeId(target),
        ),
      ).rejects.toThrow(/^ERR EMQ slot 9051 holds \{emq\}:version, and this node's copy has a TTL/);
      expect(String(await source.client.call('CLUSTER', 'NODES'))).not.toMatch(/\[9051->-/);
      expect(await source.client.call('CLUSTER', 'COUNTKEYSINSLOT', String(FENCE_SLOT))).toBe(
        before,
      );
      // A MIGRATE naming the key there is not rewritten: the copy counts as missing already.
      const port = String(target.node.port);
      await expect(
        source.client.call(
          'MIGRATE',
          target.node.host,
          port,
          '{emq}:version',
          '0',
          '5000',
          'KEYS',
          'x',
        ),
      ).rejects.toThrow(/KEYS option, the key argument must be set to the empty string/);
    } finally {
      expect(await source.client.call('EMQ.WIRE.INSTALL')).toBe('OK');
    }
    await fencesHold('after the refused move');
  });

  it('a move abandoned with SETSLOT STABLE puts the copy back where it was', async () => {
    const source = await slotOwner(FENCE_SLOT);
    const target = primaries.find((p) => p !== source) as Primary;
    const before = Number(
      await source.client.call('CLUSTER', 'COUNTKEYSINSLOT', String(FENCE_SLOT)),
    );
    await target.client.call(
      'CLUSTER',
      'SETSLOT',
      String(FENCE_SLOT),
      'IMPORTING',
      await nodeId(source),
    );
    await source.client.call(
      'CLUSTER',
      'SETSLOT',
      String(FENCE_SLOT),
      'MIGRATING',
      await nodeId(target),
    );
    await waitFor('the copy to be parked', 10_000, async () => {
      const n = Number(await source.client.call('CLUSTER', 'COUNTKEYSINSLOT', String(FENCE_SLOT)));
      return n === before - 1 ? undefined : `${n} keys`;
    });
    expect(await source.client.call('EMQ.WIRE')).toEqual(['1', '1']);
    for (const p of [source, target]) {
      await p.client.call('CLUSTER', 'SETSLOT', String(FENCE_SLOT), 'STABLE');
    }
    await waitFor('the copy to be back', 10_000, async () => {
      const n = Number(await source.client.call('CLUSTER', 'COUNTKEYSINSLOT', String(FENCE_SLOT)));
      return n === before ? undefined : `${n} keys`;
    });
    await fencesHold('after the abandoned move');
  });
});
