// The fence commands (docs/wire.md, "The fence"): EMQ.WIRE reads (readonly: on replicas, under
// CLIENT PAUSE WRITE and NOREPLICAS), EMQ.WIRE.INSTALL writes and is a right of its own, the old
// `EMQ.WIRE INSTALL` form is refused, and a copy with a TTL counts as missing.
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ReplicatedHandle,
  randomQueue,
  type ServerHandle,
  startReplicated,
  startStandalone,
} from '../../test/support/servers.js';
import { waitFor } from '../../test/support/wait.js';
import { admit, expectUnchanged, jobId, refusalOf } from './helpers.js';

const FENCE = '{emq}:version';

describe('on a standalone server', () => {
  let server: ServerHandle;
  let client: Valkey;
  beforeAll(async () => {
    server = await startStandalone({ module: true, extraArgs: ['--min-replicas-to-write', '1'] });
    client = await server.client();
  });
  afterAll(() => server.stop());
  beforeEach(async () => {
    await client.call('CONFIG', 'SET', 'min-replicas-to-write', '0');
    await client.del(FENCE);
  });

  it('EMQ.WIRE answers [identity, value or nil]; a TTL or another value shows as it counts', async () => {
    expect(await client.call('EMQ.WIRE')).toEqual(['1', null]);
    await client.set(FENCE, '1', 'PX', 600_000);
    expect(await client.call('EMQ.WIRE')).toEqual(['1', null]);
    await client.set(FENCE, '2');
    expect(await client.call('EMQ.WIRE')).toEqual(['1', '2']);
    await client.del(FENCE);
    await client.hset(FENCE, 'v', '1');
    expect(await refusalOf(client.call('EMQ.WIRE'))).toMatch(/^WRONGTYPE /);
    expect(await refusalOf(client.call('EMQ.WIRE', 'x'))).toMatch(/^ERR wrong number of arguments/);
  });

  it('EMQ.WIRE.INSTALL writes the identity and drops a TTL; the old form is refused', async () => {
    await client.set(FENCE, '1', 'PX', 600_000);
    const text = await expectUnchanged(client, () => refusalOf(client.call('EMQ.WIRE', 'INSTALL')));
    expect(text).toMatch(/^ERR EMQ\.WIRE INSTALL is retired: call EMQ\.WIRE\.INSTALL/);
    expect(await refusalOf(client.call('EMQ.WIRE', 'install'))).toMatch(/is retired/);
    expect(await client.call('EMQ.WIRE.INSTALL')).toBe('OK');
    expect(await client.pttl(FENCE)).toBe(-1);
    expect(await client.call('EMQ.WIRE')).toEqual(['1', '1']);
    expect(await refusalOf(client.call('EMQ.WIRE.INSTALL', 'x'))).toMatch(
      /^ERR wrong number of arguments/,
    );
  });

  it('refuses every write while the fence has a TTL, and after it expired', async () => {
    const q = randomQueue('ttl');
    await client.call('EMQ.WIRE.INSTALL');
    expect(await admit(client, q, jobId(1), 'a', 'p')).toEqual([1, jobId(1)]);
    await client.pexpire(FENCE, 600_000);
    const text = await expectUnchanged(client, () =>
      refusalOf(admit(client, q, jobId(2), 'b', 'p')),
    );
    expect(text).toMatch(/^EMQWIRE .*has a TTL/);

    // Expired but not yet deleted: active expiry off, and reads that do not delete it.
    await client.call('DEBUG', 'SET-ACTIVE-EXPIRE', '0');
    try {
      await client.set(FENCE, '1', 'PX', 100);
      const expiry = Number(await client.call('PEXPIRETIME', FENCE));
      await waitFor('the fence to be past its expiry', 30_000, async () => {
        const [seconds, micros] = (await client.call('TIME')) as [string, string];
        return Number(seconds) * 1000 + Number(micros) / 1000 > expiry ? undefined : 'not yet';
      });
      expect(await refusalOf(admit(client, q, jobId(3), 'c', 'p'))).toMatch(/^EMQWIRE /);
    } finally {
      await client.call('DEBUG', 'SET-ACTIVE-EXPIRE', '1');
    }
  });

  it('registers the read readonly fast and the install write, no keys', async () => {
    const [read, install] = (await client.call(
      'COMMAND',
      'INFO',
      'emq.wire',
      'emq.wire.install',
    )) as unknown[][];
    expect(read?.slice(0, 6)).toEqual(['emq.wire', -1, ['readonly', 'module', 'fast'], 0, 0, 0]);
    expect(install?.slice(0, 6)).toEqual([
      'emq.wire.install',
      -1,
      ['write', 'denyoom', 'module'],
      0,
      0,
      0,
    ]);
  });

  it('a user granted EMQ.WIRE but not EMQ.WIRE.INSTALL can read and cannot install', async () => {
    await client.call(
      'ACL',
      'SETUSER',
      'fence-reader',
      'on',
      '>pw',
      'resetkeys',
      '~*',
      '-@all',
      '+emq.wire',
      '+emq.admit',
    );
    await client.call(
      'ACL',
      'SETUSER',
      'fence-installer',
      'on',
      '>pw',
      '-@all',
      '+emq.wire.install',
    );
    const reader = await server.client({ username: 'fence-reader', password: 'pw' });
    const installer = await server.client({ username: 'fence-installer', password: 'pw' });
    try {
      expect(await reader.call('EMQ.WIRE')).toEqual(['1', null]);
      const text = await expectUnchanged(client, () => refusalOf(reader.call('EMQ.WIRE.INSTALL')));
      expect(text).toMatch(/^NOPERM /);
      expect(await refusalOf(reader.call('EMQ.WIRE', 'INSTALL'))).toMatch(/is retired/);
      expect(await installer.call('EMQ.WIRE.INSTALL')).toBe('OK');
      expect(await reader.call('EMQ.WIRE')).toEqual(['1', '1']);
    } finally {
      reader.disconnect();
      installer.disconnect();
      await client.call('ACL', 'DELUSER', 'fence-reader', 'fence-installer');
    }
  });

  it('reads under NOREPLICAS (min-replicas-to-write unmet), where the install is refused', async () => {
    await client.call('EMQ.WIRE.INSTALL');
    await client.call('CONFIG', 'SET', 'min-replicas-to-write', '1');
    expect(await client.call('EMQ.WIRE')).toEqual(['1', '1']);
    expect(await refusalOf(client.call('EMQ.WIRE.INSTALL'))).toMatch(/^NOREPLICAS /);
  });

  it('reads at once under CLIENT PAUSE WRITE, while the install is held until the pause ends', async () => {
    const admin = await server.client();
    const held = await server.client();
    await admin.call('CLIENT', 'PAUSE', '20000', 'WRITE');
    try {
      const reader = await server.client({ commandTimeout: 2_000 });
      expect(await reader.call('EMQ.WIRE')).toEqual(['1', null]);
      const install = held.call('EMQ.WIRE.INSTALL');
      await waitFor('the install to be held by the pause', 30_000, async () => {
        const list = String(await admin.call('CLIENT', 'LIST'));
        return /flags=b .*cmd=emq\.wire\.install/.test(list) ? undefined : 'not held';
      });
      expect(await reader.call('EMQ.WIRE')).toEqual(['1', null]);
      await admin.call('CLIENT', 'UNPAUSE');
      expect(await install).toBe('OK');
      expect(await reader.call('EMQ.WIRE')).toEqual(['1', '1']);
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
    }
  });
});

describe('on a replica', () => {
  let pair: ReplicatedHandle;
  beforeAll(async () => {
    pair = await startReplicated({ module: true });
  });
  afterAll(() => pair.stop());

  it('EMQ.WIRE reads the replicated copy; EMQ.WIRE.INSTALL and writes are refused', async () => {
    const primary = await pair.primary.client();
    const replica = await pair.replicas[0]?.client();
    if (replica === undefined) throw new Error('startReplicated gave no replica');
    expect(await primary.call('EMQ.WIRE.INSTALL')).toBe('OK');
    expect(await primary.call('WAIT', '1', '10000')).toBe(1);
    expect(await replica.call('EMQ.WIRE')).toEqual(['1', '1']);
    expect(await refusalOf(replica.call('EMQ.WIRE.INSTALL'))).toMatch(/^READONLY /);
    expect(await refusalOf(admit(replica, randomQueue('r'), jobId(1), 'k', 'p'))).toMatch(
      /^READONLY /,
    );
  });
});
