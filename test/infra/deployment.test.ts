// Settings: defaults, and every invalid choice reported at once before anything is built.
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { EchoMqAppStack } from '../../infra/app/app-stack.js';
import { DEFAULT_ACCESS_STRING } from '../../infra/cache/elasticache/spec.js';
import { normaliseUrl } from '../../infra/cache/endpoint-url.js';
import { missingBundles } from '../../infra/deployment/bundles.js';
import { deploymentFromContext } from '../../infra/deployment/context.js';
import { InvalidDeploymentError, resolveDeployment } from '../../infra/deployment/deployment.js';
import { DEFAULTS } from '../../src/settings/config.js';
import { SETTING_NAMES } from '../../src/settings/settings-table.js';
import { standInBundles, temporaryDir } from './support/synth.js';

/** Each construct setting's default in the functions' own DEFAULTS. */
const runtimeDefaults = Object.fromEntries(SETTING_NAMES.map((name) => [name, DEFAULTS[name]]));

const contextOf =
  (values: Record<string, unknown>) =>
  (key: string): unknown =>
    values[key];

describe('resolveDeployment', () => {
  it('fills the documented defaults', () => {
    const { deployment, problems } = resolveDeployment();
    expect(problems).toEqual([]);
    expect(deployment).toEqual({
      cache: {
        kind: 'elasticache',
        cacheAuth: 'password',
        durability: 'sync',
        nodeType: 'cache.m7g.large',
        shards: 2,
        replicasPerShard: 1,
        engineVersion: '9.1',
        port: 6379,
        accessString: DEFAULT_ACCESS_STRING,
        snapshotRetentionDays: 1,
      },
      bundleDir: fileURLToPath(new URL('../../dist/functions', import.meta.url)),
      // The runtime's defaults (test/unit/config.test.ts pins their values), ackReplicas the
      // kind's: node-based ElastiCache with its durability log confirms writes itself.
      settings: { ...runtimeDefaults, ackReplicas: 0 },
      http: {
        auth: { kind: 'iam' },
        throttleRate: 100,
        throttleBurst: 200,
        timeoutSeconds: 10,
        memoryMiB: 512,
      },
      sqs: {
        fifo: false,
        batchSize: 10,
        maxBatchingWindowSeconds: 0,
        maxConcurrency: 10,
        provisionedPollers: undefined,
        timeoutSeconds: 30,
        visibilityTimeoutSeconds: 180,
        maxReceiveCount: 5,
        memoryMiB: 512,
      },
      network: {
        cidr: '10.40.0.0/16',
        maxAzs: 2,
        interfaceEndpoints: true,
        vpcId: undefined,
        subnetIds: [],
        securityGroupIds: [],
      },
      runtime: 'nodejs22.x',
      tracing: true,
      logRetentionDays: 30,
      keepLogsOnDelete: false,
      passwordRotationDays: 30,
      alarmTopicArn: undefined,
    });
  });

  it('derives the visibility timeout from the SQS function timeout', () => {
    const { deployment } = resolveDeployment({ sqs: { timeoutSeconds: 60 } });
    expect(deployment.sqs.visibilityTimeoutSeconds).toBe(360);
  });

  it('reports every problem of one deployment together', () => {
    const { problems } = resolveDeployment({
      cache: { kind: 'elasticache', replicasPerShard: 0, shards: 0 },
      settings: { defaultQueue: 'bad queue', wire: 'no spaces' },
      http: { auth: { kind: 'jwt', issuer: 'http://insecure', audience: [] } },
      sqs: {
        timeoutSeconds: 60,
        visibilityTimeoutSeconds: 120,
        batchSize: 10_001,
        maxBatchingWindowSeconds: 5,
        maxConcurrency: 1,
      },
      logRetentionDays: 31,
    });
    expect(problems).toEqual([
      'shards must be a whole number from 1 to 500.',
      'replicasPerShard must be a whole number from 1 to 5.',
      // The runtime's own loadConfig judges the EMQ_* settings, naming the setting and its variable.
      'wire (EMQ_WIRE) is invalid: expected 1 to 64 printable ASCII characters.',
      'defaultQueue (EMQ_DEFAULT_QUEUE) is invalid: expected a queue name: 1 to 64 of A-Z a-z 0-9 . _ -.',
      'jwtIssuer must be an https URL.',
      'jwtAudience must name at least one audience (comma-separated).',
      'batchSize must be a whole number from 1 to 10000.',
      'maxConcurrency must be a whole number from 2 to 1000.',
      "visibilityTimeoutSeconds (120 s) of the source queue must be at least 6 × the SQS function's timeout, sqs timeoutSeconds (60 s) = 360 s: a record would come back while its batch still runs. Raise visibilityTimeoutSeconds or lower sqs timeoutSeconds.",
      expect.stringMatching(/^logRetentionDays must be a CloudWatch Logs retention \(1, 3, 5,/),
    ]);
  });

  it('needs a module artifact for cache=selfmanaged', () => {
    expect(
      resolveDeployment({ cache: { kind: 'selfmanaged', moduleArtifact: '' } }).problems,
    ).toEqual([
      'cache=selfmanaged needs moduleArtifact, the path of the EchoMQ module (.so) the nodes load.',
    ]);
  });

  it('needs an endpoint for cache=existing and refuses one with credentials in it', () => {
    expect(resolveDeployment({ cache: { kind: 'existing', urls: [] } }).problems).toEqual([
      'cache=existing needs valkeyEndpoint (host:port or rediss://host:port).',
    ]);
    expect(
      resolveDeployment({ cache: { kind: 'existing', urls: ['rediss://user:pw@host:6379'] } })
        .problems,
    ).toEqual([
      'valkeyEndpoint entry 1 must be host:port, redis://host:port or rediss://host:port.',
    ]);
  });

  it('wants the complete ARN of an existing cache secret', () => {
    const partial = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:emq';
    expect(
      resolveDeployment({ cache: { kind: 'existing', urls: ['h:1'], secretArn: partial } })
        .problems,
    ).toEqual([
      "valkeySecretArn must be a Secrets Manager secret's complete ARN (ending in -XXXXXX).",
    ]);
  });
});

describe('normaliseUrl', () => {
  it('reads host:port as TLS and keeps an explicit scheme', () => {
    expect(normaliseUrl('valkey.internal:6380')).toBe('rediss://valkey.internal:6380');
    expect(normaliseUrl(' redis://10.0.0.5:6379/ ')).toBe('redis://10.0.0.5:6379');
    expect(normaliseUrl('valkey.internal')).toBeUndefined();
    expect(normaliseUrl('https://valkey.internal:443')).toBeUndefined();
  });
});

describe('deploymentFromContext', () => {
  it('reads the documented keys, strings or typed values alike', () => {
    const { deployment, stackName, problems } = deploymentFromContext(
      contextOf({
        cache: 'existing',
        valkeyEndpoint: 'a:6380, b:6380',
        valkeyCluster: 'false',
        auth: 'jwt',
        jwtIssuer: 'https://issuer.example',
        jwtAudience: 'one,two',
        maxConcurrency: 50,
        logRetentionDays: '14',
        keepLogsOnDelete: true,
        passwordRotationDays: '7',
        stackName: 'EmqProd',
      }),
    );
    expect(problems).toEqual([]);
    expect(stackName).toBe('EmqProd');
    expect(deployment).toMatchObject({
      cache: { kind: 'existing', urls: ['a:6380', 'b:6380'], cluster: false },
      http: { auth: { kind: 'jwt', issuer: 'https://issuer.example', audience: ['one', 'two'] } },
      sqs: { maxConcurrency: 50 },
      logRetentionDays: 14,
      keepLogsOnDelete: true,
      passwordRotationDays: 7,
    });
  });

  it('reports keys that do not fit the chosen cache or auth, with the malformed ones', () => {
    const { problems } = deploymentFromContext(
      contextOf({
        valkeyEndpoint: 'a:6380',
        jwtIssuer: 'https://issuer.example',
        shards: 'two',
        keepLogsOnDelete: 'yes',
      }),
    );
    expect(problems).toEqual([
      'valkeyEndpoint applies only to cache=existing.',
      'jwtIssuer applies only to auth=jwt.',
      'shards must be a whole number.',
      'keepLogsOnDelete must be true or false.',
    ]);
  });

  it('names an unknown cache kind and the kind it resembles', () => {
    expect(deploymentFromContext(contextOf({ cache: 'memcached' })).problems).toEqual([
      "cache must be one of elasticache, serverless, existing, selfmanaged, memorydb; got 'memcached' (did you mean 'memorydb'?).",
    ]);
  });

  it('reports a misspelt cache kind once, not again for each key that depends on the kind', () => {
    const values = {
      cache: 'exisitng',
      valkeyEndpoint: 'a:6380',
      valkeyCluster: 'false',
      valkeySecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:v-AbCdEf',
      vpcId: 'vpc-0123456789abcdef0',
      subnetIds: 'subnet-0aaa1111bbbb2222c,subnet-0ddd3333eeee4444f',
      securityGroupIds: 'sg-0123456789abcdef0',
      cacheAuth: 'iam',
      ackReplicas: '2',
    };
    const { deployment, problems } = deploymentFromContext(contextOf(values), Object.keys(values));
    expect(problems).toEqual([
      "cache must be one of elasticache, serverless, existing, selfmanaged, memorydb; got 'exisitng' (did you mean 'existing'?).",
    ]);
    expect(resolveDeployment(deployment).problems).toEqual([]);
  });
});

describe('bundles', () => {
  it('names each missing bundle and the command that builds it', () => {
    const dir = standInBundles(['http']);
    expect(missingBundles(dir)).toEqual([
      `the sqs bundle ${dir}/sqs/index.mjs is missing: run npm run build first.`,
      `the fence bundle ${dir}/fence/index.mjs is missing: run npm run build first.`,
      `the rotate bundle ${dir}/rotate/index.mjs is missing: run npm run build first.`,
    ]);
  });
});

describe('EchoMqAppStack', () => {
  it('throws every problem, bundles included, before building a single construct', () => {
    const app = new App({ outdir: temporaryDir('emq-cdk-out-') });
    let failure: unknown;
    try {
      new EchoMqAppStack(app, 'Invalid', {
        deployment: { bundleDir: temporaryDir('emq-empty-'), sqs: { maxReceiveCount: 0 } },
      });
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(InvalidDeploymentError);
    expect((failure as InvalidDeploymentError).problems).toHaveLength(5);
    expect((failure as Error).message).toMatch(
      /^echomq-lambda: 5 problems in the props or context:\n {2}- /,
    );
    expect(app.node.findChild('Invalid').node.children).toEqual([]);
  });
});
