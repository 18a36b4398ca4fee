// Valkey 9.1 only (CI runs this file in the 9.1 leg): with the module loaded,
// CLUSTER MIGRATESLOTS of a slot holding a queue succeeds (the module declares atomic slot
// migration), admissions before, during and after the move land exactly once on the new
// owner, and the fence holds on every primary afterwards. On an older server every test
// fails with the reason: this file must never pass without having run on Valkey 9.
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterHandle, startCluster } from '../../test/support/servers.js';
import { waitFor } from '../../test/support/wait.js';
import { fencedPrimaries, ownerPort, type Primary, queueOn, queueSlot } from './cluster-helpers.js';
import { admit, admitKeys, jobId, recordOf, slotKeys } from './helpers.js';

const MIN_MAJOR = 9;
let cluster: ClusterHandle;
let primaries: Primary[];
let version = 'unknown';

beforeAll(async () => {
  cluster = await startCluster({ primaries: 3, module: true });
  primaries = await fencedPrimaries(cluster);
  const info = await primaries[0]?.client.info('server');
  version = /valkey_version:(\S+)/.exec(info ?? '')?.[1] ?? 'unknown';
  if (!(Number(version.split('.')[0]) >= MIN_MAJOR)) {
    throw new Error(
      `migrate-slots.v9.test.ts needs Valkey ${MIN_MAJOR}.1 or newer, found ${version}: run it with the 9.1 server first on PATH (bash scripts/install-valkey.sh --version 9.1 --print-path).`,
    );
  }
});
afterAll(() => cluster?.stop());

const RETRYABLE = /^(TRYAGAIN|ERR EMQ write-paused|EMQWIRE .*changing)/;

/** Sends each admission to the node serving the slot now, following MOVED like a client. */
class Router {
  port: number;
  moved = 0;
  retried = 0;
  readonly #clients: Map<number, Valkey>;

  constructor(clients: Map<number, Valkey>, port: number) {
    this.#clients = clients;
    this.port = port;
  }

  async admit(queue: string, id: string, key: string, payload: string): Promise<[number, string]> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const client = this.#clients.get(this.port);
      if (client === undefined) throw new Error(`no client for port ${this.port}`);
      try {
        return (await admit(client, queue, id, key, payload)) as [number, string];
      } catch (error) {
        const text = error instanceof Error ? error.message : String(error);
        const moved = /^MOVED \d+ [^:]+:(\d+)/.exec(text);
        if (moved) {
          this.moved += 1;
          this.port = Number(moved[1]);
        } else if (RETRYABLE.test(text)) {
          this.retried += 1;
        } else {
          throw error;
        }
        if (Date.now() > deadline) throw new Error(`admission of ${key} kept failing: ${text}`);
      }
    }
  }
}

async function migrationState(source: Valkey): Promise<string> {
  const entries = (await source.call('CLUSTER', 'GETSLOTMIGRATIONS')) as unknown[][];
  const last = entries.at(-1) ?? [];
  const state = last[last.indexOf('state') + 1];
  return typeof state === 'string' ? state : 'none';
}

describe(`atomic slot migration with the module (Valkey ${MIN_MAJOR}.1+)`, () => {
  it('the module declares it', async () => {
    const info = await primaries[0]?.client.info('modules');
    expect(info).toMatch(/module:name=emq,.*options=\[[^\]]*handle-atomic-slot-migration/);
  });

  it('moves a queue: admissions before, during and after land exactly once on the new owner', async () => {
    const [source, target] = primaries;
    if (source === undefined || target === undefined) throw new Error('need two primaries');
    const clients = new Map(primaries.map((p) => [p.node.port, p.client] as const));
    const queue = await queueOn(source.client, source.node.port, 'moving');
    const slot = queueSlot(queue);
    const router = new Router(clients, source.node.port);
    const landed = new Map<string, string>();
    let n = 0;
    const one = async (key: string) => {
      n += 1;
      const [status, id] = await router.admit(queue, jobId(n), key, `payload of ${key}`);
      expect(status, key).toBe(1);
      landed.set(key, id);
    };

    // Before: enough rows that the snapshot takes a while, so admissions overlap the move.
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(Array.from({ length: 200 }, (_, i) => one(`before-${batch}-${i}`)));
    }

    // During: one admission after another until the move is done and 20 more landed.
    let done = false;
    let afterDone = 0;
    let during = 0;
    const writer = (async () => {
      for (let i = 0; !done || afterDone < 20; i++) {
        await one(`during-${i}`);
        if (done) afterDone += 1;
        else during += 1;
      }
    })();
    const targetId = String(await target.client.call('CLUSTER', 'MYID'));
    expect(
      await source.client.call(
        'CLUSTER',
        'MIGRATESLOTS',
        'SLOTSRANGE',
        String(slot),
        String(slot),
        'NODE',
        targetId,
      ),
    ).toBe('OK');
    await waitFor('the migration to succeed', 30_000, async () => {
      const state = await migrationState(source.client);
      if (state === 'failed' || state === 'cancelled') throw new Error(`migration ${state}`);
      return state === 'success' ? undefined : state;
    });
    await waitFor('every primary to see the new owner', 30_000, async () => {
      for (const p of primaries) {
        if ((await ownerPort(p.client, slot)) !== target.node.port) return `${p.node.url} not yet`;
      }
      return undefined;
    });
    done = true;
    await writer;

    // After: straight to the new owner; the old one redirects.
    const direct = new Router(clients, target.node.port);
    for (let i = 0; i < 50; i++) {
      n += 1;
      const key = `after-${i}`;
      expect(await direct.admit(queue, jobId(n), key, `payload of ${key}`)).toEqual([1, jobId(n)]);
      landed.set(key, jobId(n));
    }
    expect(direct.moved).toBe(0);
    expect(router.moved).toBeGreaterThanOrEqual(1);

    // Exactly once: each key replayed with a fresh proposal names its first id, on the new owner.
    for (const [key, id] of landed) {
      n += 1;
      expect(await direct.admit(queue, jobId(n), key, `payload of ${key}`)).toEqual([0, id]);
    }
    const total = landed.size;
    const pending = admitKeys(queue, 'x').pending;
    expect(await target.client.zcard(pending)).toBe(total);
    // Rows, the pending set and the record slots in use moved; nothing stayed behind.
    const slotsInUse = await target.client.exists(...slotKeys(queue));
    expect(slotsInUse).toBeGreaterThanOrEqual(1);
    expect(await target.client.call('CLUSTER', 'COUNTKEYSINSLOT', String(slot))).toBe(
      total + 1 + slotsInUse,
    );
    expect(await source.client.call('CLUSTER', 'COUNTKEYSINSLOT', String(slot))).toBe(0);
    for (const [key, id] of landed) {
      const keys = admitKeys(queue, id);
      expect(await target.client.hget(keys.row, 'payload')).toBe(`payload of ${key}`);
      expect((await recordOf(target.client, queue, key))?.value).toMatch(new RegExp(`^${id}:`));
    }
    console.info(
      `valkey ${version}: ${total} admissions, ${during} issued during the move, ${router.moved} MOVED, ${router.retried} retried`,
    );
  });

  it("refuses to move the fence's own slot, whose copies would crash the target, and nothing moves", async () => {
    const fenceSlot = queueSlot('emq');
    const ownerAt = await ownerPort(primaries[0]?.client as Valkey, fenceSlot);
    const owner = primaries.find((p) => p.node.port === ownerAt);
    const other = primaries.find((p) => p.node.port !== ownerAt);
    if (owner === undefined || other === undefined) throw new Error('need two primaries');
    const otherId = String(await other.client.call('CLUSTER', 'MYID'));
    const before = ((await owner.client.call('CLUSTER', 'GETSLOTMIGRATIONS')) as unknown[]).length;
    for (const range of [
      [fenceSlot, fenceSlot],
      [fenceSlot - 5, fenceSlot + 5],
    ]) {
      const reply = owner.client.call(
        'CLUSTER',
        'MIGRATESLOTS',
        'SLOTSRANGE',
        '1',
        '1',
        'SLOTSRANGE',
        String(range[0]),
        String(range[1]),
        'NODE',
        otherId,
      );
      await expect(reply).rejects.toThrow(/^ERR EMQ slot 9051 holds \{emq\}:version/);
    }
    expect(((await owner.client.call('CLUSTER', 'GETSLOTMIGRATIONS')) as unknown[]).length).toBe(
      before,
    );
    expect(await ownerPort(other.client, fenceSlot)).toBe(ownerAt);
    for (const p of primaries) expect(p.node.running).toBe(true);
  });

  it('the fence holds on every primary afterwards', async () => {
    for (const [i, p] of primaries.entries()) {
      expect(await p.client.call('EMQ.WIRE')).toEqual(['1', '1']);
      const queue = await queueOn(p.client, p.node.port, 'fenced');
      expect(await admit(p.client, queue, jobId(900_000 + i), 'k', 'p')).toEqual([
        1,
        jobId(900_000 + i),
      ]);
    }
  });
});
