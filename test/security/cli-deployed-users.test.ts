// `emq` as an operator runs it with the deployed users' credentials and no EMQ_EXECUTOR (so
// `auto`): on each server kind (acl-setup.ts: the rules read from the synthesized template),
// `emq install` as the installer's user installs identity and library, and `emq doctor` as
// the functions' user passes every check. Only the native family's users hold COMMAND INFO,
// which `auto` asked first; the others were refused it and told to "fix the user's ACL
// rules", which were right. A family the user was not given is refused naming the command,
// the user and the setting to change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, emq } from '../support/cli.js';
import {
  type ClusterHandle,
  type ServerHandle,
  startCluster,
  startStandalone,
} from '../support/servers.js';
import {
  aclArgs,
  aclDir,
  FUNCTIONS_USER,
  INSTALLER_USER,
  KINDS,
  PASSWORD,
  type ServerKind,
} from './acl-setup.js';

const servers = new Map<ServerKind, ServerHandle>();
let cluster: ClusterHandle;
let removeDir: () => Promise<void>;

beforeAll(async () => {
  assertBuilt();
  const { dir, remove } = await aclDir();
  removeDir = remove;
  await Promise.all(
    KINDS.map(async (kind) => {
      const options = { module: kind.module, extraArgs: await aclArgs(dir, kind) };
      servers.set(kind, await startStandalone(options));
      // The default deploy: ElastiCache node-based in cluster mode, the function family.
      if (kind.family === 'function') cluster = await startCluster(options);
    }),
  );
});

afterAll(async () => {
  await Promise.all([...servers.values()].map((server) => server.stop()));
  await cluster?.stop();
  await removeDir?.();
});

/** `url` with a deployed user's name and password in it. */
function as(user: string, url: string): string {
  const withUser = new URL(url);
  withUser.username = user;
  withUser.password = PASSWORD;
  return withUser.toString();
}

describe.each(KINDS)('on the $name', (kind) => {
  const server = () => servers.get(kind) as ServerHandle;

  it('installs as the deployed installer, and the functions’ user passes every check, under auto', async () => {
    const install = await emq(['install', '--url', as(INSTALLER_USER, server().url), '--json']);
    expect(install.stderr).toBe('');
    expect(install.code).toBe(0);
    const nodes = (JSON.parse(install.stdout) as { nodes: { ok: boolean }[] }).nodes;
    expect(nodes.map((node) => node.ok)).toEqual([true]);

    const doctor = await emq(['doctor', '--url', as(FUNCTIONS_USER, server().url), '--json']);
    expect(doctor.code).toBe(0);
    expect(JSON.parse(doctor.stdout)).toMatchObject({ ok: true, family: kind.family });
  });
});

// The script family's SCRIPT EXISTS is what the other installers are not given.
describe.each(KINDS.filter((kind) => kind.family !== 'script'))('on the $name', (kind) => {
  it('names the refused command, the user and EMQ_EXECUTOR when told the script family', async () => {
    const url = as(INSTALLER_USER, (servers.get(kind) as ServerHandle).url);
    const run = await emq(['install', '--url', url, '--json'], {
      env: { EMQ_EXECUTOR: 'script' },
    });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      error: {
        code: 'EMQ_CONFIG',
        message: expect.stringMatching(
          new RegExp(
            `^Valkey refused 'script\\|exists' to user '${INSTALLER_USER}': .* Set EMQ_EXECUTOR to the family the user was given`,
          ),
        ),
      },
    });
  });
});

describe('on an ElastiCache-like cluster', () => {
  it('installs as the deployed installer under auto, on every primary', async () => {
    const seeds = cluster.seeds.map((seed) => as(INSTALLER_USER, seed)).join(',');
    const run = await emq(['install', '--cluster', '--url', seeds, '--json']);
    expect(run.code).toBe(0);
    const nodes = (JSON.parse(run.stdout) as { nodes: { ok: boolean }[] }).nodes;
    expect(nodes.length).toBe((await cluster.primaries()).length);
    expect(nodes.every((node) => node.ok)).toBe(true);
  });
});
