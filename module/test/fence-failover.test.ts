// A primary's own {emq}:version across promotions. Valkey 9.1.2 deletes the keys of slots a
// primary does not own when a replica is promoted, and a delete inside CLUSTER FAILOVER TAKEOVER
// made it propagate the TAKEOVER to the old primary, which crashed; the module takes its copy
// out before that check and puts it back (fence-keep.c). An operator's DEL, SET or EXPIRE on
// the owner of slot 9051 still removes or changes the fence. Runs on 8.0.1 and 9.1.2.
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { primariesOf, replicaOf, waitForRole } from '../../test/faults/driver/topology.js';
import { type ClusterHandle, type ServerHandle, startCluster } from '../../test/support/servers.js';
import { waitFor } from '../../test/support/wait.js';
import { fencedPrimaries, ownerPort, queueOn } from './cluster-helpers.js';
import { admit, expectUnchanged, jobId, refusalOf } from './helpers.js';

const FENCE = '{emq}:version';
const FENCE_SLOT = 9051;
let cluster: ClusterHandle;
const clients: Valkey[] = [];

beforeAll(async () => {
  cluster = await startCluster({ primaries: 3, replicasPerPrimary: 1, module: true });
  for (const p of await fencedPrimaries(cluster)) clients.push(p.client);
});
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await cluster?.stop();
});

async function clientOf(node: ServerHandle): Promise<Valkey> {
  const client = await node.client();
  clients.push(client);
  return client;
}

/**
 * The current primaries (by their own ROLE: after a TAKEOVER another node's view can still list
 * the demoted one) and which of them serves slot 9051.
 */
async function primariesBySlot(): Promise<{ owner: ServerHandle; others: ServerHandle[] }> {
  const primaries = await primariesOf(cluster);
  const witness = await clientOf(primaries[0] as ServerHandle);
  const port = await ownerPort(witness, FENCE_SLOT);
  const owner = primaries.find((node) => node.port === port);
  if (owner === undefined) throw new Error(`no listed primary serves slot ${FENCE_SLOT}`);
  return { owner, others: primaries.filter((node) => node !== owner) };
}

/** `node`'s copy as EMQ.WIRE and the slot's key count see it, once `expected` holds. */
async function copyOn(node: ServerHandle, expected: [string, string | null], keys: number) {
  const client = await clientOf(node);
  await waitFor(`${node.url} holds ${JSON.stringify(expected)}`, 30_000, async () => {
    const wire = await client.call('EMQ.WIRE');
    const count = await client.call('CLUSTER', 'COUNTKEYSINSLOT', String(FENCE_SLOT));
    const seen = JSON.stringify([wire, count]);
    return seen === JSON.stringify([expected, keys]) ? undefined : `holds ${seen}`;
  });
}

/** An admission on a queue `node` serves, retried while its role settles. */
async function admitsOn(node: ServerHandle, n: number): Promise<void> {
  const client = await clientOf(node);
  const queue = await queueOn(client, node.port, 'kept');
  await waitFor(`admission on ${node.url}`, 30_000, async () => {
    try {
      const reply = (await admit(client, queue, jobId(n), `k${n}`, 'p')) as [number, string];
      return reply[0] === 1 ? undefined : `answered ${JSON.stringify(reply)}`;
    } catch (error) {
      return String(error);
    }
  });
}

describe('a primary promoted with CLUSTER FAILOVER TAKEOVER', () => {
  it('keeps its node-local copy of a slot it does not own, admits, and the old primary lives', async () => {
    const { others } = await primariesBySlot();
    const victim = others[0] as ServerHandle;
    const heir = await replicaOf(cluster, victim);
    await copyOn(heir, ['1', '1'], 1);

    const admin = await clientOf(heir);
    expect(await admin.call('CLUSTER', 'FAILOVER', 'TAKEOVER')).toBe('OK');
    await waitForRole(heir, 'primary');
    await waitForRole(victim, 'replica');

    await copyOn(heir, ['1', '1'], 1);
    await admitsOn(heir, 1);
    // The old primary follows the heir, still running, with the copy the heir put back.
    expect(victim.running).toBe(true);
    await copyOn(victim, ['1', '1'], 1);
    expect(victim.logs(400)).not.toMatch(/ASSERTION FAILED|crashed by signal/);
  });

  it('keeps the copy when the heir is the one that serves slot 9051', async () => {
    const { owner } = await primariesBySlot();
    const heir = await replicaOf(cluster, owner);
    // What the test needs first: the heir holds the copy it is to keep.
    await copyOn(heir, ['1', '1'], 1);
    const admin = await clientOf(heir);
    expect(await admin.call('CLUSTER', 'FAILOVER', 'TAKEOVER')).toBe('OK');
    await waitForRole(heir, 'primary');
    await waitForRole(owner, 'replica');
    await copyOn(heir, ['1', '1'], 1);
    await admitsOn(heir, 2);
  });
});

describe("an operator's change of the fence", () => {
  it('DEL on the owner of slot 9051 removes the fence there, and writes are refused', async () => {
    const { owner, others } = await primariesBySlot();
    const client = await clientOf(owner);
    const queue = await queueOn(client, owner.port, 'gone');
    expect(await client.del(FENCE)).toBe(1);
    await copyOn(owner, ['1', null], 0);
    const text = await expectUnchanged(client, () =>
      refusalOf(admit(client, queue, jobId(3), 'k3', 'p')),
    );
    expect(text).toMatch(/^EMQWIRE wire identity not installed/);

    // Elsewhere no client can reach the copy (MOVED), so a delete there is the server's.
    const elsewhere = await clientOf(others[0] as ServerHandle);
    expect(await refusalOf(elsewhere.del(FENCE))).toMatch(/^MOVED /);
    await copyOn(others[0] as ServerHandle, ['1', '1'], 1);

    expect(await client.call('EMQ.WIRE.INSTALL')).toBe('OK');
    await copyOn(owner, ['1', '1'], 1);
  });

  it('a TTL set on the owner is refused as missing and is not put back after it expires', async () => {
    const { owner } = await primariesBySlot();
    const client = await clientOf(owner);
    expect(await client.pexpire(FENCE, 200)).toBe(1);
    await copyOn(owner, ['1', null], 1);
    await waitFor('the copy expired', 30_000, async () =>
      (await client.exists(FENCE)) === 0 ? undefined : 'still there',
    );
    await copyOn(owner, ['1', null], 0);
    expect(await client.call('EMQ.WIRE.INSTALL')).toBe('OK');
  });
});
