// docs/upgrading.md "Rolling out, and back", releases roll out safely: where a release changes the
// wire identity, the live and the new functions would refuse each other's fence, so the installer
// (which reads the live identity at deploy, as synth cannot) fails an Update that comes with a
// gradual rollout, writing nothing; the same identity, or the change all at once, installs. On a
// real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onFenceEvent } from '../../functions/fence/on-event.js';
import { setLogSink } from '../../functions/shared/log.js';
import { digestOf, type ServerHandle, startStandalone } from '../support/servers.js';
import { createEvent, updateEvent } from './support/cfn-events.js';

let server: ServerHandle;
let env: Record<string, string>;
let restoreLogs: () => void;

beforeAll(async () => {
  const previous = setLogSink(() => {});
  restoreLogs = () => setLogSink(previous);
  server = await startStandalone();
  env = { EMQ_URL: server.url, EMQ_EXECUTOR: 'function' };
  await onFenceEvent(createEvent('1'), { env });
});

afterAll(async () => {
  restoreLogs();
  await server?.stop();
});

const gradual = { Rollout: 'gradual' };

describe('an Update with a gradual rollout', () => {
  it('fails when the release changes the live identity, naming both and writing nothing', async () => {
    const before = await digestOf(server);
    const failure = await onFenceEvent(updateEvent('2', '1', gradual), { env }).catch(
      (error: unknown) => error as Error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(
      /changes the wire identity from '1' to '2', and a gradual rollout is configured: .*Deploy this release all at once/,
    );
    expect((failure as Error).message).not.toContain(server.url);
    expect(await digestOf(server)).toBe(before);
  });

  it('installs where the release keeps the live identity', async () => {
    const result = await onFenceEvent(updateEvent('1', '1', gradual), { env });
    expect(result.Data?.Wire).toBe('1');
  });

  it('is not asked of an all-at-once rollout, which installs the new identity', async () => {
    const result = await onFenceEvent(updateEvent('2', '1', { Rollout: 'all-at-once' }), { env });
    expect(result.Data?.Wire).toBe('2');
  });
});
