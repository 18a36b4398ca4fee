// Loading the module: atomic slot migration is declared exactly where the server knows the
// option (Valkey 9+), so 8.0 still loads it; a bad module argument stops the server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startStandalone } from '../../test/support/servers.js';

let server: ServerHandle;
beforeAll(async () => {
  server = await startStandalone({ module: { wire: 'v7' } });
});
afterAll(() => server.stop());

describe('the module at load', () => {
  it('declares atomic slot migration only on a server that knows the option', async () => {
    const client = await server.client();
    const version = /valkey_version:(\d+)\./.exec(await client.info('server'))?.[1];
    const modules = await client.info('modules');
    const line = /module:name=emq,[^\r\n]*/.exec(modules)?.[0];
    expect(line).toBeDefined();
    if (Number(version) >= 9) expect(line).toMatch(/options=\[handle-atomic-slot-migration\]/);
    else expect(line).toMatch(/options=\[\]/);
  });

  it('takes the wire identity from its arguments', async () => {
    const client = await server.client();
    expect(await client.call('EMQ.WIRE')).toEqual(['v7', null]);
    expect(await client.call('EMQ.WIRE.INSTALL')).toBe('OK');
    expect(await client.get('{emq}:version')).toBe('v7');
  });

  it('refuses to load with an identity that has a space or a quote, so the server does not start', async () => {
    for (const wire of ['has space', "it's", '']) {
      await expect(startStandalone({ module: { wire } }), JSON.stringify(wire)).rejects.toThrow(
        /did not start/,
      );
    }
  });
});
