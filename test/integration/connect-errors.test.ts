// A connection that cannot open for a reason an operator must fix (docs/reliability.md, "Outcomes",
// the configuration row): refused credentials, none sent where they are needed, a cluster node
// reached in the wrong mode. Each is a ConfigError that names what to change (the user, never the
// password), the HTTP face answers 500 (no Retry-After), the SQS face retries the records and logs
// an error, and iovalkey prints nothing of its own to stderr.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as httpHandler } from '../../functions/http/handler.js';
import { resetContainer } from '../../functions/shared/connection.js';
import { setLogSink } from '../../functions/shared/log.js';
import { handler as sqsHandler } from '../../functions/sqs/handler.js';
import { ConfigError, connect } from '../../src/index.js';
import { fixture, lambdaContext } from '../fixtures/http/events.js';
import { clearEmqEnv, configureContainer, invoke } from '../fixtures/http/invoke.js';
import { sqsEvent, sqsRecord } from '../fixtures/sqs/records.js';
import { ADMIN, usersWithAdmin } from '../support/admin-user.js';
import {
  type ClusterHandle,
  type ServerHandle,
  startCluster,
  startStandalone,
} from '../support/servers.js';

const USERS = usersWithAdmin(['app', 'on', '>right-password', '~*', '&*', '+@all']);

let standalone: ServerHandle;
let cluster: ClusterHandle;
let plain: ServerHandle;
let clusterNode: string;
const lines: Record<string, unknown>[] = [];
let restoreLogs: ((line: string) => void) | undefined;
const printed = vi.spyOn(console, 'error');

beforeAll(async () => {
  restoreLogs = setLogSink((line) => lines.push(JSON.parse(line)), 'debug');
  [standalone, cluster, plain] = await Promise.all([
    startStandalone({ auth: ADMIN, extraArgs: USERS }),
    startCluster({ auth: ADMIN, extraArgs: USERS }),
    startStandalone(),
  ]);
  clusterNode = (cluster.nodes[0] as ServerHandle).url;
});

afterEach(async () => {
  await resetContainer();
  clearEmqEnv();
  lines.length = 0;
});

afterAll(async () => {
  if (restoreLogs !== undefined) setLogSink(restoreLogs);
  printed.mockRestore();
  await Promise.all([standalone?.stop(), cluster?.stop(), plain?.stop()]);
});

const seeds = (target: ServerHandle | ClusterHandle) =>
  target.kind === 'cluster'
    ? { urls: target.seeds, cluster: true }
    : { urls: [target.url], cluster: false };

describe.each(['standalone', 'cluster'] as const)(
  'on a %s server that wants a password',
  (kind) => {
    const target = () => (kind === 'cluster' ? cluster : standalone);

    it('refuses a wrong password as configuration, naming the user and never the password', async () => {
      const failure = await connect({
        ...seeds(target()),
        username: 'app',
        password: 'wrong-password',
        connectTimeoutMs: 2_000,
      }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ConfigError);
      expect(failure).toMatchObject({ code: 'EMQ_CONFIG', retryable: false });
      expect((failure as Error).message).toMatch(/refused to authenticate user 'app'/);
      expect((failure as Error).message).not.toContain('wrong-password');
    });

    it('refuses a wrong password given in the URL as wrong credentials, naming the URL’s user', async () => {
      const { urls, cluster: isCluster } = seeds(target());
      const failure = await connect({
        urls: urls.map((url) => url.replace('redis://', 'redis://app:wrong-password@')),
        cluster: isCluster,
        connectTimeoutMs: 2_000,
      }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ConfigError);
      expect((failure as Error).message).toMatch(/^Valkey refused to authenticate user 'app': /);
      expect((failure as Error).message).not.toContain('wrong-password');
    });

    it('says that none were sent when the server wants credentials and none were given', async () => {
      const failure = await connect({ ...seeds(target()), connectTimeoutMs: 2_000 }).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ConfigError);
      expect((failure as Error).message).toMatch(/wants credentials and none were sent/);
    });

    it('answers HTTP 500 EMQ_CONFIG without Retry-After, and logs the server refusal', async () => {
      await configureContainer(target(), {
        EMQ_USERNAME: 'app',
        EMQ_PASSWORD: 'wrong-password',
        EMQ_CONNECT_TIMEOUT_MS: '2000',
      });
      const { response, body } = await invoke(httpHandler, fixture('v2-post', { queue: 'auth' }));
      expect(response.statusCode).toBe(500);
      expect(response.headers['retry-after']).toBeUndefined();
      expect(body).toMatchObject({ code: 'EMQ_CONFIG', retryable: false });
      expect(JSON.stringify(body)).not.toMatch(/app|password/);
      const failed = lines.find((line) => line.message === 'connection failed');
      expect(failed).toMatchObject({ level: 'error', code: 'EMQ_CONFIG' });
      // The server's own refusal: WRONGPASS, or NOAUTH on a cluster node's later command.
      expect(failed?.cause).toMatch(/^(WRONGPASS|NOAUTH)$/);
      expect(failed?.detail).toMatch(/user 'app'/);
      expect(JSON.stringify(lines)).not.toContain('wrong-password');
    });

    it('retries SQS records as a configuration fault: none dead-lettered, an error logged', async () => {
      await configureContainer(target(), {
        EMQ_USERNAME: 'app',
        EMQ_PASSWORD: 'wrong-password',
        EMQ_CONNECT_TIMEOUT_MS: '2000',
        EMQ_DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/emq-dlq',
      });
      const records = [sqsRecord({ body: 'a' }), sqsRecord({ body: 'b' })];
      const answer = await sqsHandler(sqsEvent(records), lambdaContext());
      expect(answer?.batchItemFailures.map((item) => item.itemIdentifier)).toEqual(
        records.map((record) => record.messageId),
      );
      const retried = lines.filter((line) => line.message === 'sqs record');
      expect(retried.map((line) => [line.level, line.disposition, line.code])).toEqual([
        ['warn', 'retry', 'EMQ_CONFIG'],
        ['warn', 'retry', 'EMQ_CONFIG'],
      ]);
      // A retry cannot mend it: an error, said once for the batch.
      const batch = lines.find((line) => line.message === 'sqs batch');
      expect(batch).toMatchObject({ level: 'error', code: 'EMQ_CONFIG' });
    });
  },
);

describe('a server reached in the wrong cluster mode', () => {
  it('a cluster node read as a single server: set EMQ_CLUSTER=true', async () => {
    const failure = await connect({
      urls: [clusterNode],
      username: ADMIN.username,
      password: ADMIN.password,
      checkFence: false,
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toMatch(/cluster node: set EMQ_CLUSTER=true/);
  });

  it('a single server read as a cluster: set EMQ_CLUSTER=false', async () => {
    const failure = await connect({
      urls: [plain.url],
      cluster: true,
      connectTimeoutMs: 2_000,
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toMatch(/not a cluster node.*EMQ_CLUSTER=false/);
  });
});

describe('on a server without a password', () => {
  it('refuses to go on with a password it was given (fail closed): configuration, naming neither', async () => {
    const failure = await connect({
      urls: [plain.url],
      password: 'a-password-for-another-server',
      connectTimeoutMs: 2_000,
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect(failure).toMatchObject({ code: 'EMQ_CONFIG', retryable: false });
    expect((failure as Error).message).toMatch(/has none configured/);
    expect((failure as Error).message).not.toContain('a-password-for-another-server');
  });
});

describe('what reaches stderr', () => {
  it('nothing of iovalkey: every error event is handled', () => {
    const ours = printed.mock.calls.filter((call) => String(call[0]).includes('[ioredis]'));
    expect(ours).toEqual([]);
  });
});
