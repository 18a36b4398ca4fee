// What the stack deploys on ElastiCache, rehearsed on a local cluster without the module: the
// functions' RBAC user with the default access string, credentials from the secret, the script
// executor. The fence installer and an enqueue must work as that user, and nothing else may.
import type { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FenceEventOptions, onFenceEvent } from '../../functions/fence/on-event.js';
import { setLogSink } from '../../functions/shared/log.js';
import { APP_USERNAME } from '../../infra/cache/elasticache.js';
import { DEFAULT_ACCESS_STRING } from '../../infra/settings.js';
import { type Connection, connect, enqueue, LIBRARY_VERSION, readJob } from '../../src/index.js';
import { type ClusterHandle, randomQueue, startCluster } from '../support/servers.js';
import { createEvent } from './support/cfn-events.js';

const ADMIN = { username: 'admin', password: 'admin-password-for-tests' };
const APP_PASSWORD = 'app-password-for-tests';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:emq-AbCdEf';

let cluster: ClusterHandle;
let env: Record<string, string>;
let restoreLogs: () => void;
const open: Connection[] = [];

beforeAll(async () => {
  restoreLogs = (() => {
    const previous = setLogSink(() => {});
    return () => setLogSink(previous);
  })();
  cluster = await startCluster({
    auth: ADMIN,
    extraArgs: [
      ...['--user', ADMIN.username, 'on', `>${ADMIN.password}`, '~*', '&*', '+@all'],
      ...['--user', APP_USERNAME, ...DEFAULT_ACCESS_STRING.split(' '), `>${APP_PASSWORD}`],
      ...['--user', 'default', 'off'],
    ],
  });
  env = {
    EMQ_URL: cluster.seeds.join(','),
    EMQ_CLUSTER: 'true',
    EMQ_EXECUTOR: 'function',
    EMQ_SECRET_ARN: SECRET_ARN,
  };
});

afterAll(async () => {
  await Promise.all(open.map((connection) => connection.close()));
  await cluster?.stop();
  restoreLogs();
});

/** Secrets Manager at the SDK boundary: answers GetSecretValue for the one secret. */
function secretsManager(asked: string[]): NonNullable<FenceEventOptions['secrets']> {
  const send = async (command: GetSecretValueCommand) => {
    asked.push(String(command.input.SecretId));
    return { SecretString: JSON.stringify({ username: APP_USERNAME, password: APP_PASSWORD }) };
  };
  return { send } as unknown as NonNullable<FenceEventOptions['secrets']>;
}

async function asApp(): Promise<Connection> {
  const connection = await connect({
    urls: cluster.seeds,
    cluster: true,
    executor: 'function',
    username: APP_USERNAME,
    password: APP_PASSWORD,
  });
  open.push(connection);
  return connection;
}

describe('on an ElastiCache-like cluster', () => {
  it('the fence installer reads the secret and installs the identity as the functions user', async () => {
    const asked: string[] = [];
    const result = await onFenceEvent(createEvent('1'), { env, secrets: secretsManager(asked) });
    expect(asked).toEqual([SECRET_ARN]);
    // Every primary: each gets the emq function library; the identity is the one routed key.
    expect(result).toEqual({ PhysicalResourceId: 'emq-fence', Data: { Wire: '1', Nodes: 3 } });
    const admin = await cluster.clusterClient();
    expect(await admin.get('{emq}:version')).toBe('1');
    for (const node of admin.nodes('master')) {
      expect(await node.call('FCALL_RO', 'emq_version', '0')).toBe(LIBRARY_VERSION);
    }
  });

  it('the functions user enqueues and reads a job back with the script executor', async () => {
    await onFenceEvent(createEvent('1'), { env, secrets: secretsManager([]) });
    const connection = await asApp();
    const queue = randomQueue('acl');
    const admitted = await enqueue(connection, { queue, payload: 'hello', idempotencyKey: 'k-1' });
    expect(admitted.status).toBe('enqueued');
    const row = await readJob(connection, queue, admitted.id);
    expect(row?.payload.toString()).toBe('hello');
    expect(row?.state).toBe('pending');
  });

  it('the functions user may not touch keys outside the EchoMQ keyspace or flush the data', async () => {
    await onFenceEvent(createEvent('1'), { env, secrets: secretsManager([]) });
    const connection = await asApp();
    await expect(connection.client.set('not-emq', 'x')).rejects.toThrow(/NOPERM/);
    await expect(connection.client.call('FLUSHALL')).rejects.toThrow(/NOPERM/);
    const admin = await cluster.clusterClient();
    expect(await admin.exists('not-emq')).toBe(0);
  });
});
