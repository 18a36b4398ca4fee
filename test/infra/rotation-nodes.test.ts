// The rotation function's four steps on a self-managed cluster's nodes (functions/rotate,
// node-passwords.ts), run as Secrets Manager runs them against a stand-in of its versions and
// stages: a real standalone server and a real cluster with replicas, each loading an ACL file
// as the nodes do, reached as the admin user through the connector the functions use. After a
// rotation the user logs in with the current and the new password on every node, and the ACL
// file keeps both; after the next one the oldest is refused everywhere.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodePasswords } from '../../functions/rotate/node-passwords.js';
import {
  type RotationDeps,
  RotationError,
  type RotationStep,
  rotate,
} from '../../functions/rotate/rotation.js';
import { type Config, configure } from '../../src/settings/config.js';
import { aclDir } from '../security/acl-setup.js';
import { ADMIN } from '../support/admin-user.js';
import { freshBundle, run } from '../support/bundles.js';
import { startCluster } from '../support/cluster.js';
import { valkeyEnvironment } from '../support/functions.js';
import {
  FIRST_PASSWORD,
  logsIn,
  SECRET_ARN,
  SecretVersions,
  STEPS,
  serveSecretVersions,
} from '../support/secret-versions.js';
import { startStandalone } from '../support/standalone.js';
import type { ClusterHandle, ServerHandle } from '../support/types.js';

const USER_ID = 'emq-rotated-app';

let acl: Awaited<ReturnType<typeof aclDir>>;
let server: ServerHandle;
let cluster: ClusterHandle;

/** An ACL file as bootstrap.sh writes it: the admin, the rotated user, the default user off. */
async function aclFile(name: string): Promise<string> {
  const path = join(acl.dir, name);
  await writeFile(
    path,
    [
      `user ${ADMIN.username} on >${ADMIN.password} ~* &* +@all`,
      `user ${USER_ID} on >${FIRST_PASSWORD} resetchannels -@all +ping`,
      'user default off resetkeys resetchannels -@all',
      '',
    ].join('\n'),
  );
  return path;
}

beforeAll(async () => {
  acl = await aclDir();
  server = await startStandalone({
    auth: ADMIN,
    extraArgs: ['--aclfile', await aclFile('standalone.acl')],
  });
  cluster = await startCluster({
    auth: ADMIN,
    primaries: 3,
    replicasPerPrimary: 1,
    extraArgs: ['--aclfile', await aclFile('cluster.acl')],
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await cluster?.stop();
  await acl?.remove();
});

const standaloneConfig = (): Config =>
  configure({ urls: [`redis://${server.host}:${server.port}`], cluster: false });
const clusterConfig = (): Config => configure({ urls: [...cluster.seeds], cluster: true });

function depsOver(secrets: SecretVersions, config: Config): RotationDeps {
  return {
    secrets,
    users: nodePasswords({
      config,
      admin: () => Promise.resolve(ADMIN),
    }),
    userOf: (arn) => (arn === SECRET_ARN ? USER_ID : undefined),
    pause: () => Promise.resolve(),
    settleMs: 0,
  };
}

function step(secrets: SecretVersions, config: Config, name: RotationStep, token: string) {
  return rotate(
    { Step: name, SecretId: SECRET_ARN, ClientRequestToken: token },
    depsOver(secrets, config),
  );
}

async function rotateOnce(secrets: SecretVersions, config: Config, token: string): Promise<void> {
  secrets.startRotation(token);
  for (const name of STEPS) await step(secrets, config, name, token);
}

const firstSecret = () =>
  new SecretVersions(JSON.stringify({ username: USER_ID, password: FIRST_PASSWORD }));

/** What each node answers for each password, node by node. */
async function logins(
  nodes: readonly { host: string; port: number }[],
  passwords: readonly string[],
): Promise<boolean[][]> {
  return Promise.all(
    nodes.map((node) => Promise.all(passwords.map((password) => logsIn(node, USER_ID, password)))),
  );
}

/** The rotated user back to its first password alone, on every node of `nodes`. */
async function resetUser(nodes: readonly ServerHandle[]): Promise<void> {
  for (const node of nodes) {
    const admin = await node.client();
    await admin.call('ACL', 'SETUSER', USER_ID, 'resetpass', `>${FIRST_PASSWORD}`);
    await admin.call('ACL', 'SAVE');
  }
}

const passwordOf = (secrets: SecretVersions) => String(secrets.current().password);

describe('the rotation function on a standalone node', () => {
  it('keeps both passwords across a restart of the server, and drops the oldest at the next rotation', async () => {
    await resetUser([server]);
    const secrets = firstSecret();
    await rotateOnce(secrets, standaloneConfig(), 'token-1');
    const second = passwordOf(secrets);
    expect(second).not.toBe(FIRST_PASSWORD);
    // ACL SAVE wrote both into the ACL file the server loads when it starts.
    await server.restart();
    expect(await logins([server], [FIRST_PASSWORD, second])).toEqual([[true, true]]);

    await rotateOnce(secrets, standaloneConfig(), 'token-2');
    const third = passwordOf(secrets);
    expect(await logins([server], [FIRST_PASSWORD, second, third])).toEqual([[false, true, true]]);
    expect(secrets.versions.get('token-1')?.stages).toEqual(['AWSPREVIOUS']);
  });

  it('runs every step again without a change, as Secrets Manager may', async () => {
    await resetUser([server]);
    const secrets = firstSecret();
    secrets.startRotation('again');
    for (const name of STEPS) {
      for (const _ of [1, 2]) await step(secrets, standaloneConfig(), name, 'again');
    }
    const second = passwordOf(secrets);
    expect(second).not.toBe(FIRST_PASSWORD);
    expect(await logins([server], [FIRST_PASSWORD, second])).toEqual([[true, true]]);
    const admin = await server.client();
    const rules = (await admin.call('ACL', 'GETUSER', USER_ID)) as unknown[];
    expect(rules[rules.indexOf('passwords') + 1]).toHaveLength(2);
  });
});

describe('the rotation function on a cluster with replicas', () => {
  it('gives every primary and replica both passwords, then drops the oldest on each', async () => {
    await resetUser(cluster.nodes);
    const secrets = firstSecret();
    await rotateOnce(secrets, clusterConfig(), 'token-1');
    const second = passwordOf(secrets);
    const all = cluster.nodes.map(() => [true, true]);
    expect(cluster.nodes).toHaveLength(6);
    expect(await logins(cluster.nodes, [FIRST_PASSWORD, second])).toEqual(all);

    await rotateOnce(secrets, clusterConfig(), 'token-2');
    const third = passwordOf(secrets);
    expect(await logins(cluster.nodes, [FIRST_PASSWORD, second, third])).toEqual(
      cluster.nodes.map(() => [false, true, true]),
    );
  });

  it('fails testSecret while a node refuses the new password, and passes once setSecret ran again', async () => {
    await resetUser(cluster.nodes);
    const secrets = firstSecret();
    const config = clusterConfig();
    secrets.startRotation('lost');
    await step(secrets, config, 'createSecret', 'lost');
    await step(secrets, config, 'setSecret', 'lost');
    // One replica lost the new password (its server restarted from an older ACL file).
    const replica = cluster.nodes[cluster.nodes.length - 1] as ServerHandle;
    const admin = await replica.client();
    await admin.call('ACL', 'SETUSER', USER_ID, 'resetpass', `>${FIRST_PASSWORD}`);

    const failure = await step(secrets, config, 'testSecret', 'lost').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RotationError);
    expect((failure as Error).message).not.toContain(FIRST_PASSWORD);
    expect(secrets.current().password).toBe(FIRST_PASSWORD);

    await step(secrets, config, 'setSecret', 'lost');
    await step(secrets, config, 'testSecret', 'lost');
    await step(secrets, config, 'finishSecret', 'lost');
    const second = passwordOf(secrets);
    expect(await logins(cluster.nodes, [FIRST_PASSWORD, second])).toEqual(
      cluster.nodes.map(() => [true, true]),
    );
  });
});

describe('the built rotation bundle on a cluster', () => {
  it('reads the admin secret of EMQ_SECRET_ARN and rotates the user on every node, in a process of its own', async () => {
    await resetUser(cluster.nodes);
    const bundle = await freshBundle('functions/rotate', ['functions', 'src']);
    const adminArn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:emq-admin-AbCdEf';
    const secrets = firstSecret();
    const served = await serveSecretVersions({
      [SECRET_ARN]: secrets,
      [adminArn]: new SecretVersions(JSON.stringify(ADMIN)),
    });
    try {
      secrets.startRotation('bundle');
      // The four steps as Secrets Manager invokes them, one warm container.
      const script = `const { handler } = await import(process.argv[1]);
for (const Step of ${JSON.stringify(STEPS)}) {
  await handler({ Step, SecretId: ${JSON.stringify(SECRET_ARN)}, ClientRequestToken: 'bundle' });
}`;
      await run(process.execPath, ['--input-type=module', '-e', script, bundle], {
        timeout: 60_000,
        env: {
          PATH: process.env.PATH,
          ...served.environment,
          ...valkeyEnvironment(cluster),
          EMQ_SECRET_ARN: adminArn,
          ROTATED_SERVICE: 'nodes',
          ROTATED_USERS: JSON.stringify([{ secretArn: SECRET_ARN, userId: USER_ID }]),
        },
      });
    } finally {
      await served.close();
    }
    const second = passwordOf(secrets);
    expect(second).not.toBe(FIRST_PASSWORD);
    expect(secrets.versions.get('bundle')?.stages).toEqual(['AWSCURRENT']);
    expect(await logins(cluster.nodes, [FIRST_PASSWORD, second])).toEqual(
      cluster.nodes.map(() => [true, true]),
    );
  });
});
