// The fence installer of an existing cache (docs/deploy.md, "Into an existing account"), as its
// built bundle, on a real Valkey whose users hold exactly the function-family rules
// docs/security.md gives: without installer credentials it connects as the functions' user and only
// verifies (it succeeds after an administrator's `emq install`, and fails naming `emq install` and
// the rights on an empty server); with the installer's user it installs. A NOPERM on an install
// step is a missing right, never a wrong EMQ_EXECUTOR.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FENCE_PHYSICAL_ID } from '../../functions/fence/on-event.js';
import { LIBRARY_VERSION } from '../../src/families/library.js';
import { assertBuilt, emq } from '../support/cli.js';
import {
  type ClusterHandle,
  digestOf,
  type ServerHandle,
  startCluster,
  startStandalone,
} from '../support/servers.js';
import { createEvent } from './support/cfn-events.js';

const PASSWORD = randomBytes(18).toString('hex');
const bundle = new URL('../../dist/functions/fence/index.mjs', import.meta.url);

/**
 * The first line of the fenced block after `heading` in docs/security.md: the rules as documented.
 */
function documentedRules(heading: string): string {
  const text = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
  const after = text.slice(text.indexOf(heading));
  const block = /```\n([^\n]+)\n/.exec(after)?.[1];
  if (block === undefined) throw new Error(`no rules after '${heading}' in docs/security.md`);
  return block;
}

const FUNCTIONS_RULES = documentedRules('Function family (ElastiCache node-based;');
const INSTALLER_RULES = documentedRules("### The installer's user");
const SCRIPT_FUNCTIONS_RULES = documentedRules('Script family (ElastiCache Serverless):');
/** What ElastiCache Serverless lacks of what a rule or the harness could name. */
const SERVERLESS_ABSENT = ['FCALL', 'FCALL_RO', 'FUNCTION', 'WAIT'];

let server: ServerHandle;
let cluster: ClusterHandle;
let scripted: ServerHandle;
let aclDir: string;
let handler: (event: unknown, context: unknown) => Promise<unknown>;

beforeAll(async () => {
  assertBuilt();
  expect(existsSync(bundle), 'dist/functions/fence/index.mjs is missing: run npm run build').toBe(
    true,
  );
  ({ handler } = (await import(bundle.href)) as { handler: typeof handler });
  aclDir = await mkdtemp(join(tmpdir(), 'emq-acl-'));
  const aclFile = join(aclDir, 'users.acl');
  await writeFile(
    aclFile,
    [
      // The administrator: the harness's own user, and the one who runs `emq install` by hand.
      'user default on nopass ~* &* +@all',
      `user emq-app >${PASSWORD} ${FUNCTIONS_RULES}`,
      `user emq-installer >${PASSWORD} ${INSTALLER_RULES}`,
      '',
    ].join('\n'),
  );
  const scriptAcl = join(aclDir, 'script.acl');
  await writeFile(
    scriptAcl,
    [
      'user default on nopass ~* &* +@all',
      `user emq-app >${PASSWORD} ${SCRIPT_FUNCTIONS_RULES}`,
      '',
    ].join('\n'),
  );
  const options = { extraArgs: ['--aclfile', aclFile] };
  const renamed = SERVERLESS_ABSENT.flatMap((command) => ['--rename-command', command, '']);
  [server, cluster, scripted] = await Promise.all([
    startStandalone(options),
    startCluster(options),
    startStandalone({ extraArgs: ['--aclfile', scriptAcl, ...renamed] }),
  ]);
});

afterAll(async () => {
  await Promise.all([server?.stop(), cluster?.stop(), scripted?.stop()]);
  if (aclDir !== undefined) await rm(aclDir, { recursive: true, force: true });
});

beforeEach(async () => {
  for (const node of [server, ...(await cluster.primaries())]) {
    const admin = await node.client();
    try {
      await admin.call('FUNCTION', 'FLUSH');
      await admin.flushall();
    } finally {
      admin.disconnect();
    }
  }
});

/** The connection settings of the standalone server, or of the cluster's seeds. */
function endpointOf(topology: Topology): Record<string, string> {
  if (topology === 'script') return { EMQ_URL: scripted.url, EMQ_CLUSTER: 'false' };
  return topology === 'server'
    ? { EMQ_URL: server.url, EMQ_CLUSTER: 'false' }
    : { EMQ_URL: cluster.seeds.join(','), EMQ_CLUSTER: 'true' };
}

/** The function-family server and cluster, and a Serverless-like server (script family). */
type Topology = 'server' | 'cluster' | 'script';

interface Outcome {
  readonly result?: unknown;
  readonly failure?: Error;
}

/** The bundle's handler on a Create event of `mode`, connecting as `user`. */
async function run(
  mode: 'install' | 'verify',
  user: string,
  topology: Topology = 'server',
): Promise<Outcome> {
  const saved = { ...process.env };
  Object.assign(process.env, {
    ...endpointOf(topology),
    EMQ_EXECUTOR: 'auto',
    EMQ_USERNAME: user,
    EMQ_PASSWORD: PASSWORD,
  });
  // The bundle carries its own copy of the logger, which writes to stdout.
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    const result = await handler(createEvent('1', { Executor: 'auto', Mode: mode }), {
      getRemainingTimeInMillis: () => 30_000,
    });
    return { result };
  } catch (error) {
    return { failure: error as Error };
  } finally {
    stdout.mockRestore();
    process.env = saved;
  }
}

/** What the server holds of the fence: the identity and the library's version. */
async function fenceState(): Promise<{ wire: unknown; library: unknown }> {
  const admin = await server.client();
  try {
    const libraries = (await admin.call('FUNCTION', 'LIST', 'LIBRARYNAME', 'emq')) as unknown[];
    return {
      wire: await admin.get('{emq}:version'),
      library: libraries.length === 0 ? null : await admin.call('FCALL_RO', 'emq_version', '0'),
    };
  } finally {
    admin.disconnect();
  }
}

describe("the installer without credentials of its own (the functions' user)", () => {
  it('verifies, changing nothing, after an administrator ran `emq install`', async () => {
    const installed = await emq(['install'], { env: { EMQ_URL: server.url } });
    expect(installed.code, installed.stderr).toBe(0);
    const before = await digestOf(server);
    const { result, failure } = await run('verify', 'emq-app');
    expect(failure).toBeUndefined();
    expect(result).toEqual({
      PhysicalResourceId: FENCE_PHYSICAL_ID,
      Data: { Wire: '1', Nodes: 1 },
    });
    expect(await digestOf(server)).toEqual(before);
  });

  it('fails on an empty server naming `emq install` and the rights it lacks, never EMQ_EXECUTOR', async () => {
    const before = await digestOf(server);
    const { failure } = await run('verify', 'emq-app');
    expect(failure?.message).toMatch(
      /^Verifying the EchoMQ wire identity failed: EMQWIRE: Not installed: the server has no \{emq\}:version and has no emq library; .*installing takes SET of \{emq\}:version and FUNCTION LOAD, .*Run `emq install` as a user that holds them/,
    );
    expect(failure?.message).toContain('EchoMqCache.existing an installer');
    expect(failure?.message).not.toContain('EMQ_EXECUTOR');
    expect(await digestOf(server)).toEqual(before);
    expect(await fenceState()).toEqual({ wire: null, library: null });
  });

  it('asked to install, names the right the user lacks and `emq install`, never EMQ_EXECUTOR', async () => {
    const { failure } = await run('install', 'emq-app');
    expect(failure?.message).toMatch(
      /^Installing the EchoMQ wire identity failed: EMQ_CONFIG: Valkey refused '(set|function\|load)' to user 'emq-app' while installing: .*installer's rules.*Run `emq install`/,
    );
    expect(failure?.message).not.toContain('EMQ_EXECUTOR');
    expect(await fenceState()).toEqual({ wire: null, library: null });
  });
});

describe("the installer with the installer's user", () => {
  it('installs the identity and the library on an empty server', async () => {
    const { result, failure } = await run('install', 'emq-installer');
    expect(failure).toBeUndefined();
    expect(result).toEqual({
      PhysicalResourceId: FENCE_PHYSICAL_ID,
      Data: { Wire: '1', Nodes: 1 },
    });
    expect(await fenceState()).toEqual({ wire: '1', library: LIBRARY_VERSION });
    // And the functions' user then verifies what it installed.
    expect((await run('verify', 'emq-app')).failure).toBeUndefined();
  });
});

describe('on a cluster of three primaries', () => {
  it("verifies as the functions' user after `emq install`, and fails naming a node before it", async () => {
    const before = await digestOf(cluster);
    const { failure } = await run('verify', 'emq-app', 'cluster');
    expect(failure?.message).toMatch(
      /^Verifying the EchoMQ wire identity failed: EMQWIRE: Not installed: cluster node [0-9a-f]{40} .*Run `emq install`/,
    );
    expect(failure?.message).not.toContain('EMQ_EXECUTOR');
    expect(await digestOf(cluster)).toEqual(before);

    const installed = await emq(['install'], { env: endpointOf('cluster') });
    expect(installed.code, installed.stderr).toBe(0);
    const after = await digestOf(cluster);
    const { result } = await run('verify', 'emq-app', 'cluster');
    expect(result).toEqual({
      PhysicalResourceId: FENCE_PHYSICAL_ID,
      Data: { Wire: '1', Nodes: 3 },
    });
    expect(await digestOf(cluster)).toEqual(after);
  });

  it("installs as the installer's user", async () => {
    const { result } = await run('install', 'emq-installer', 'cluster');
    expect(result).toEqual({
      PhysicalResourceId: FENCE_PHYSICAL_ID,
      Data: { Wire: '1', Nodes: 3 },
    });
    expect((await run('verify', 'emq-app', 'cluster')).failure).toBeUndefined();
  });
});

describe("the script family's functions' user (a Serverless-like server)", () => {
  it('loads the script a node lacks, as every connection of the family does, and verifies', async () => {
    const admin = await scripted.client();
    try {
      await admin.flushall();
      const installed = await emq(['install'], { env: endpointOf('script') });
      expect(installed.code, installed.stderr).toBe(0);
      // A restart empties the script cache; the identity stays.
      await admin.call('SCRIPT', 'FLUSH');
      const { result, failure } = await run('verify', 'emq-app', 'script');
      expect(failure).toBeUndefined();
      expect(result).toEqual({
        PhysicalResourceId: FENCE_PHYSICAL_ID,
        Data: { Wire: '1', Nodes: 1 },
      });
      expect(await admin.get('{emq}:version')).toBe('1');
    } finally {
      admin.disconnect();
    }
  });
});
