// The module in cluster mode: routing by key positions (MOVED, CROSSSLOT before the handler),
// admissions through the cached fence on every primary, and the cache refusing a fence copy
// that got a TTL or expired (the cache once kept passing writes after expiry).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterHandle, startCluster } from '../../test/support/servers.js';
import { waitFor } from '../../test/support/wait.js';
import { fencedPrimaries, ownerPort, type Primary, queueOn, queueSlot } from './cluster-helpers.js';
import {
  admit,
  admitArgs,
  admitKeys,
  expectUnchanged,
  jobId,
  recordOf,
  refusalOf,
} from './helpers.js';

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
  return waitFor(`admissions on ${p.node.url}`, 30_000, async () => {
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
      expect((await recordOf(p.client, queue, `k${100 + i}`))?.value).toMatch(
        new RegExp(`^${jobId(100 + i)}:`),
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

    // Keys of two slots: the pending set of one queue, every other key of another.
    const mine = await queueOn(a.client, a.node.port, 'mine');
    let other = await queueOn(a.client, a.node.port, 'mine');
    while (queueSlot(other) === queueSlot(mine))
      other = await queueOn(a.client, a.node.port, 'mine');
    const args = admitArgs(mine, [{ id: jobId(2), key: 'k', payload: 'p' }]);
    args[1] = admitKeys(other, jobId(2)).pending;
    const crossText = await expectUnchanged(a.client, () =>
      refusalOf(a.client.call('EMQ.ADMIT', ...args)),
    );
    expect(crossText).toMatch(/^CROSSSLOT /);
  });

  it('a call of a queue served elsewhere is MOVED whatever key decides it, the last row included', async () => {
    const [a, b] = [primaries[0], primaries[1]];
    if (a === undefined || b === undefined) throw new Error('need two primaries');
    const elsewhere = await queueOn(a.client, b.node.port, 'far');
    const admissions = [1, 2, 3].map((n) => ({ id: jobId(n), key: `k${n}`, payload: 'p' }));
    const text = await expectUnchanged(a.client, () =>
      refusalOf(a.client.call('EMQ.ADMIT', ...admitArgs(elsewhere, admissions))),
    );
    expect(text).toMatch(new RegExp(`^MOVED ${queueSlot(elsewhere)} [^:]+:${b.node.port}$`));
    expect(await b.client.call('EMQ.ADMIT', ...admitArgs(elsewhere, admissions))).toEqual(
      admissions.map((x) => [1, x.id]),
    );
  });

  it('declares every key with its use: COMMAND GETKEYSANDFLAGS', async () => {
    const q = 'keys';
    const args = admitArgs(q, [{ id: jobId(1), key: 'k', payload: 'p' }]);
    const keys = (await first().client.call(
      'COMMAND',
      'GETKEYSANDFLAGS',
      'EMQ.ADMIT',
      ...args,
    )) as [string, string[]][];
    const write = ['RW', 'update'];
    const readWrite = ['RW', 'access', 'update'];
    expect(keys).toEqual([
      [`emq:{${q}}:pending`, write],
      ...[0, 1, 2].map((s) => [`emq:{${q}}:dedupe:${s}`, [...readWrite, 'delete']]),
      [`emq:{${q}}:dedupe:3`, [...readWrite, 'delete']],
      [`emq:{${q}}:job:${jobId(1)}`, readWrite],
    ]);
  });

  it('ACL key patterns apply to the declared keys: no dedupe access is NOPERM, nothing written', async () => {
    const p = first();
    const queue = await queueOn(p.client, p.node.port, 'acl');
    const rules: Record<string, string[]> = {
      'acl-no-dedupe': ['~emq:{*}:job:*', '~emq:{*}:pending'],
      'acl-read-dedupe': ['~emq:{*}:job:*', '~emq:{*}:pending', '%R~emq:{*}:dedupe:*'],
      'acl-queue': ['~emq:{*}:job:*', '%W~emq:{*}:pending', '~emq:{*}:dedupe:*'],
    };
    for (const [user, keys] of Object.entries(rules)) {
      await p.client.call('ACL', 'SETUSER', user, 'reset', 'on', '>pw', ...keys, '+emq.admit');
    }
    try {
      const args = admitArgs(queue, [{ id: jobId(1), key: 'k', payload: 'p' }]);
      for (const user of ['acl-no-dedupe', 'acl-read-dedupe']) {
        const client = await p.node.client({ username: user, password: 'pw' });
        const text = await expectUnchanged(p.client, () =>
          refusalOf(client.call('EMQ.ADMIT', ...args)),
        );
        expect(text, user).toMatch(/^NOPERM .*key/);
        client.disconnect();
      }
      const allowed = await p.node.client({ username: 'acl-queue', password: 'pw' });
      expect(await allowed.call('EMQ.ADMIT', ...args)).toEqual([[1, jobId(1)]]);
      allowed.disconnect();
    } finally {
      await p.client.call('ACL', 'DELUSER', ...Object.keys(rules));
    }
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
    await waitFor('the cache to see the TTL', 30_000, async () => {
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
      await waitFor('the copy to be past its expiry', 30_000, async () => {
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
