// Both families write the same bytes: conformance to docs/wire.md ("The row at birth", "The calls")
// on a server that loads the module.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, enqueue, readJob } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import { connectTo, startFencedServer } from '../support/emq.js';
import { randomQueue, type ServerHandle } from '../support/servers.js';

let server: ServerHandle;
let native: Connection;
let script: Connection;

beforeAll(async () => {
  server = await startFencedServer();
  native = await connectTo(server, { family: 'native', maxPayloadBytes: 2 * 1024 * 1024 });
  script = await connectTo(server, { family: 'function', maxPayloadBytes: 2 * 1024 * 1024 });
});

afterAll(() => server.stop());

const payloads: [string, Buffer][] = [
  ['an empty payload', Buffer.alloc(0)],
  ['every byte value 0-255', Buffer.from(Array.from({ length: 256 }, (_, i) => i))],
  ['a 1 MiB payload', randomBytes(1024 * 1024)],
  ['a payload that is not UTF-8', Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x00, 0xa0])],
  ['a JSON payload', Buffer.from('{"order":42,"items":["a","b"]}')],
];

describe('the two families', () => {
  it('choose native where the module is loaded', () => {
    expect(native.family.name).toBe('native');
    expect(script.family.name).toBe('function');
  });

  it.each(payloads)('write byte-identical rows for %s', async (_, payload) => {
    const queue = randomQueue('conf');
    const id = mintId();
    const client = native.client;
    const rowKey = `emq:{${queue}}:job:${id}`;
    const pendingKey = `emq:{${queue}}:pending`;

    expect(await enqueue(native, { queue, id, payload })).toEqual({
      queue,
      id,
      status: 'enqueued',
    });
    const nativeRow = await client.dumpBuffer(rowKey);
    const nativePending = await client.dumpBuffer(pendingKey);
    // The id is recorded as its own key now: the other family writes it in a queue of its own.
    const other = randomQueue('conf');
    const otherRow = `emq:{${other}}:job:${id}`;

    expect(await enqueue(script, { queue: other, id, payload })).toEqual({
      queue: other,
      id,
      status: 'enqueued',
    });
    const scriptRow = await client.dumpBuffer(otherRow);
    const scriptPending = await client.dumpBuffer(`emq:{${other}}:pending`);

    expect(scriptRow).not.toBeNull();
    expect(scriptRow?.equals(nativeRow ?? Buffer.alloc(0))).toBe(true);
    expect(scriptPending?.equals(nativePending ?? Buffer.alloc(0))).toBe(true);
  });

  it.each([
    ['native', () => native],
    ['function', () => script],
  ])(
    '%s writes exactly state, attempts, payload and a pending entry at score 0',
    async (_, conn) => {
      const queue = randomQueue('row');
      const payload = Buffer.from([0, 1, 2, 255]);
      const { id } = await enqueue(conn(), { queue, payload });
      const client = conn().client;
      const fields = await client.hgetallBuffer(`emq:{${queue}}:job:${id}`);
      expect(Object.keys(fields)).toEqual(['state', 'attempts', 'payload']);
      expect(await readJob(conn(), queue, id)).toEqual({ state: 'pending', attempts: 0, payload });
      expect(await client.zrange(`emq:{${queue}}:pending`, 0, -1, 'WITHSCORES')).toEqual([id, '0']);
      expect(await client.ttl(`emq:{${queue}}:job:${id}`)).toBe(-1);
      // A keyless request carries a key of its own call: its record lives in one of the
      // queue's record slots, the third key, and no key has a TTL (docs/wire.md,
      // "The row at birth").
      const keys = (await client.keys(`emq:{${queue}}:*`)).sort();
      expect(keys).toHaveLength(3);
      const slot = keys.find((key) => key.includes(':dedupe:')) ?? '';
      expect(slot).toMatch(/:dedupe:[0-3]$/);
      const records = Object.entries(await client.hgetall(slot)).filter(([field]) => field !== '~');
      expect(records.map(([, value]) => value.split(':')[0])).toEqual([id]);
      for (const key of keys) expect(await client.pttl(key)).toBe(-1);
    },
  );

  it.each([
    ['native', () => native],
    ['function', () => script],
  ])('%s answers duplicate for an existing row and writes nothing', async (_, conn) => {
    const queue = randomQueue('dup');
    const first = await enqueue(conn(), { queue, payload: 'same' });
    const again = await enqueue(conn(), { queue, id: first.id, payload: 'same' });
    expect(again).toEqual({ queue, id: first.id, status: 'duplicate' });
  });

  it('reads no row back for a job that does not exist', async () => {
    expect(await readJob(native, randomQueue('none'), 'JOB0KHTOWnGLuC')).toBeNull();
  });
});
