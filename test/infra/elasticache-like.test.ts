// What the stack deploys on ElastiCache, rehearsed on a local cluster without the module: the
// functions' RBAC user with the default access string and the installer's own user with its
// rules, credentials from their secrets, the function family. The fence installer works as
// its user, an enqueue as the functions', and neither may do the other's part.
import type { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FenceEventOptions, onFenceEvent } from '../../functions/fence/on-event.js';
import { setLogSink } from '../../functions/shared/log.js';
import { APP_USERNAME, INSTALLER_USERNAME } from '../../infra/cache/elasticache/construct.js';
import {
  DEFAULT_ACCESS_STRING,
  INSTALLER_ACCESS_STRING,
} from '../../infra/cache/elasticache/spec.js';
import { LIBRARY_VERSION } from '../../src/families/library.js';
import { type Connection, connect, enqueue, readJob } from '../../src/index.js';
import { ADMIN, usersWithAdmin } from '../support/admin-user.js';
import { type ClusterHandle, randomQueue, startCluster } from '../support/servers.js';
import { createEvent } from './support/cfn-events.js';

const APP_PASSWORD = 'app-password-for-tests';
const INSTALLER_PASSWORD = 'installer-password-for-tests';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:emq-AbCdEf';
const INSTALLER_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:emq-inst-AbCdEf';
const SECRETS: Readonly<Record<string, { username: string; password: string }>> = {
  [SECRET_ARN]: { username: APP_USERNAME, password: APP_PASSWORD },
  [INSTALLER_SECRET_ARN]: { username: INSTALLER_USERNAME, password: INSTALLER_PASSWORD },
};

let cluster: ClusterHandle;
let env: Record<string, string>;
let installerEnv: Record<string, string>;
let restoreLogs: () => void;
const open: Connection[] = [];

beforeAll(async () => {
  restoreLogs = (() => {
    const previous = setLogSink(() => {});
    return () => setLogSink(previous);
  })();
  cluster = await startCluster({
    auth: ADMIN,
    extraArgs: usersWithAdmin(
      [APP_USERNAME, ...DEFAULT_ACCESS_STRING.split(' '), `>${APP_PASSWORD}`],
      [INSTALLER_USERNAME, ...INSTALLER_ACCESS_STRING.split(' '), `>${INSTALLER_PASSWORD}`],
    ),
  });
  env = {
    EMQ_URL: cluster.seeds.join(','),
    EMQ_CLUSTER: 'true',
    EMQ_EXECUTOR: 'function',
    EMQ_SECRET_ARN: SECRET_ARN,
  };
  installerEnv = { ...env, EMQ_SECRET_ARN: INSTALLER_SECRET_ARN };
});

afterAll(async () => {
  await Promise.all(open.map((connection) => connection.close()));
  await cluster?.stop();
  restoreLogs();
});

/** Secrets Manager at the SDK boundary: answers GetSecretValue for the two secrets. */
function secretsManager(asked: string[]): NonNullable<FenceEventOptions['secrets']> {
  const send = async (command: GetSecretValueCommand) => {
    const id = String(command.input.SecretId);
    asked.push(id);
    const value = SECRETS[id];
    if (value === undefined) throw new Error(`ResourceNotFoundException: ${id}`);
    return { SecretString: JSON.stringify(value) };
  };
  return { send } as unknown as NonNullable<FenceEventOptions['secrets']>;
}

async function asApp(): Promise<Connection> {
  const connection = await connect({
    urls: cluster.seeds,
    cluster: true,
    family: 'function',
    username: APP_USERNAME,
    password: APP_PASSWORD,
  });
  open.push(connection);
  return connection;
}

describe('on an ElastiCache-like cluster', () => {
  it('the fence installer reads its own secret and installs the identity as its own user', async () => {
    const asked: string[] = [];
    const result = await onFenceEvent(createEvent('1'), {
      env: installerEnv,
      secrets: secretsManager(asked),
    });
    expect(asked).toEqual([INSTALLER_SECRET_ARN]);
    // Every primary: each gets the emq function library; the identity is the one routed key.
    expect(result).toEqual({ PhysicalResourceId: 'emq-fence', Data: { Wire: '1', Nodes: 3 } });
    const admin = await cluster.clusterClient();
    expect(await admin.get('{emq}:version')).toBe('1');
    for (const node of admin.nodes('master')) {
      expect(await node.call('FCALL_RO', 'emq_version', '0')).toBe(LIBRARY_VERSION);
    }
  });

  it('the functions user enqueues and reads a job back with the script family', async () => {
    await onFenceEvent(createEvent('1'), { env: installerEnv, secrets: secretsManager([]) });
    const connection = await asApp();
    const queue = randomQueue('acl');
    const admitted = await enqueue(connection, { queue, payload: 'hello', idempotencyKey: 'k-1' });
    expect(admitted.status).toBe('enqueued');
    const row = await readJob(connection, queue, admitted.id);
    expect(row?.payload.toString()).toBe('hello');
    expect(row?.state).toBe('pending');
  });

  it('the functions user may not touch keys outside the EchoMQ keyspace or flush the data', async () => {
    await onFenceEvent(createEvent('1'), { env: installerEnv, secrets: secretsManager([]) });
    const connection = await asApp();
    await expect(connection.client.set('not-emq', 'x')).rejects.toThrow(/NOPERM/);
    await expect(connection.client.call('FLUSHALL')).rejects.toThrow(/NOPERM/);
    const admin = await cluster.clusterClient();
    expect(await admin.exists('not-emq')).toBe(0);
  });

  it('the functions user cannot run the installer: it may not load the library', async () => {
    const failed = await onFenceEvent(createEvent('1'), {
      env,
      secrets: secretsManager([]),
      retryForMs: 0,
    }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    expect(String((failed as Error).message)).not.toMatch(/password/i);
  });
});
