// The module in cluster mode: routing by key positions (MOVED, CROSSSLOT before the handler),
// admissions through the cached fence on every primary, and the cache refusing a fence copy
// that got a TTL or expired (the cache once kept passing writes after expiry).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterHandle, startCluster } from '../../test/support/servers.js';
import { waitFor } from '../../test/support/wait.js';
import { fencedPrimaries, ownerPort, type Primary, queueOn, queueSlot } from './cluster-helpers.js';
import { admit, admitKeys, expectUnchanged, jobId, refusalOf } from './helpers.js';

const FENCE = '{emq}:version';
let cluster: ClusterHandle;
let primaries: Primary[];

beforeAll(async () => {
  cluster = await startCluster({ primaries: 3, module: true });
  primaries = await fencedPrimaries(cluster);
});
afterAll(() => cluster.stop());

function first(): Primary {
  const p = primaries[0];
  if (p === undefined) throw new Error('no primary');
  return p;
}

/** Admissions into a queue of this node pass (the cache re-reads asynchronously). */
function admitsOn(p: Primary, queue: string, n: number): Promise<void> {
  return waitFor(`admissions on ${p.node.url}`, 10_000, async () => {
    try {
      const id = jobId(n);
      const reply = (await admit(p.client, queue, id, `k${n}`, 'p')) as [number, string];
      return reply[0] === 1 || reply[0] === 0 ? undefined : `answered ${reply}`;
    } catch (error) {
      return String(error);
    }
  });
}

describe('EMQ.ADMIT on a cluster', () => {
  it('admits on every primary for a queue it owns, with the fence read from its own copy', async () => {
    for (const [i, p] of primaries.entries()) {
      const queue = await queueOn(p.client, p.node.port, 'own');
      await admitsOn(p, queue, 100 + i);
      expect(await p.client.get(admitKeys(queue, jobId(100 + i), `k${100 + i}`).dedupe)).toBe(
        jobId(100 + i),
      );
    }
  });

  it('answers MOVED for a queue of another node and CROSSSLOT for keys of two slots, writing nothing', async () => {
    const [a, b] = [primaries[0], primaries[1]];
    if (a === undefined || b === undefined) throw new Error('need two primaries');
    const elsewhere = await queueOn(a.client, b.node.port, 'far');
    const text = await expectUnchanged(a.client, () =>
      refusalOf(admit(a.client, elsewhere, jobId(1), 'k', 'p')),
    );
    expect(text).toMatch(/^MOVED \d+ /);

    const mine = await queueOn(a.client, a.node.port, 'mine');
    const other = await queueOn(a.client, a.node.port, 'mine');
    const keys = admitKeys(mine, jobId(2), 'k');
    const cross = admitKeys(other, jobId(2), 'k');
    const crossText = await expectUnchanged(a.client, () =>
      refusalOf(
        a.client.call(
          'EMQ.ADMIT',
          '3',
          keys.row,
          cross.pending,
          keys.dedupe,
          jobId(2),
          'p',
          '1000',
        ),
      ),
    );
    // Two queues of one node can share a slot; then the module's layout check refuses.
    expect(crossText).toMatch(queueSlot(mine) === queueSlot(other) ? /^EMQLAYOUT / : /^CROSSSLOT /);
  });

  it('EMQ.WIRE and EMQ.WIRE.INSTALL are refused inside MULTI', async () => {
    for (const command of ['EMQ.WIRE', 'EMQ.WIRE.INSTALL']) {
      const replies = await first().client.multi().call(command).exec();
      expect(String(replies?.[0]?.[0])).toMatch(/cannot run inside MULTI in cluster mode/);
    }
  });
});

describe('the cluster-mode fence cache', () => {
  it('refuses writes once the copy gets a TTL, and after it expired unseen, until reinstalled', async () => {
    const fencePort = await ownerPort(first().client, queueSlot('emq'));
    const owner = primaries.find((p) => p.node.port === fencePort);
    if (owner === undefined) throw new Error('no primary owns the fence slot');
    const queue = await queueOn(owner.client, owner.node.port, 'ttl');
    await admitsOn(owner, queue, 1);

    await owner.client.pexpire(FENCE, 600_000);
    await waitFor('the cache to see the TTL', 10_000, async () => {
      const text = await refusalOf(admit(owner.client, queue, jobId(2), 'k2', 'p')).catch(String);
      return /^EMQWIRE .*has a TTL/.test(text) ? undefined : text;
    });
    expect(await owner.client.call('EMQ.WIRE')).toEqual(['1', null]);
    // Other primaries hold their own copies, without a TTL: they go on admitting.
    for (const p of primaries.filter((other) => other !== owner)) {
      await admitsOn(p, await queueOn(p.client, p.node.port, 'still'), 3);
    }

    // Expired with no event yet: active expiry off, and no read that deletes the key.
    await owner.client.call('DEBUG', 'SET-ACTIVE-EXPIRE', '0');
    try {
      await owner.client.set(FENCE, '1', 'PX', 100);
      const expiry = Number(await owner.client.call('PEXPIRETIME', FENCE));
      await waitFor('the copy to be past its expiry', 5_000, async () => {
        const [seconds, micros] = (await owner.client.call('TIME')) as [string, string];
        return Number(seconds) * 1000 + Number(micros) / 1000 > expiry ? undefined : 'not yet';
      });
      const text = await expectUnchanged(owner.client, () =>
        refusalOf(admit(owner.client, queue, jobId(4), 'k4', 'p')),
      );
      expect(text).toMatch(/^EMQWIRE /);
    } finally {
      await owner.client.call('DEBUG', 'SET-ACTIVE-EXPIRE', '1');
    }

    expect(await owner.client.call('EMQ.WIRE.INSTALL')).toBe('OK');
    await admitsOn(owner, queue, 5);
  });
});
