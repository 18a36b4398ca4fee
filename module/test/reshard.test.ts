// Moving slot 9051 ({emq}:version's) the ordinary way (docs/wire.md, "The fence"): `valkey-cli
// --cluster reshard` (CLUSTER SETSLOT IMPORTING/MIGRATING, MIGRATE ... KEYS, CLUSTER SETSLOT NODE),
// with and without --cluster-replace, the same procedure by hand, and a move abandoned half-way.
// After each: the slot's owner changed, every key of the slot reached the target, every primary
// holds its own copy (EMQ.WIRE) and admits on queues it serves, and a replay of each key on the
// moved queue names its first id. A normal queue slot moves the same way. Runs on 8.0.1 and 9.1.2.
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../test/support/wait.js';
import type { Primary } from './cluster-helpers.js';
import {
  FENCE_SLOT,
  fencesHold,
  load,
  lowestSlot,
  movedKeys,
  nodeId,
  nothingLost,
  primaries,
  queueIn,
  reshard,
  slotKeysAfter,
  slotOwner,
  theCluster,
  useReshardCluster,
} from './reshard-helpers.js';

useReshardCluster();

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
    await theCluster().waitForHealthy();
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
    await waitFor('the copy to be parked', 30_000, async () => {
      const n = Number(await source.client.call('CLUSTER', 'COUNTKEYSINSLOT', String(FENCE_SLOT)));
      return n === before - 1 ? undefined : `${n} keys`;
    });
    expect(await source.client.call('EMQ.WIRE')).toEqual(['1', '1']);
    for (const p of [source, target]) {
      await p.client.call('CLUSTER', 'SETSLOT', String(FENCE_SLOT), 'STABLE');
    }
    await waitFor('the copy to be back', 30_000, async () => {
      const n = Number(await source.client.call('CLUSTER', 'COUNTKEYSINSLOT', String(FENCE_SLOT)));
      return n === before ? undefined : `${n} keys`;
    });
    await fencesHold('after the abandoned move');
  });
});
