// cache=serverless: ElastiCache Serverless for Valkey, synthesized once, checked where it
// differs from the node-based default; and the dashboard every stack carries.
import { beforeAll, describe, expect, it } from 'vitest';
import { SERVERLESS_ACCESS_STRING } from '../../infra/cache/serverless/spec.js';
import { FENCE_RESOURCE_TYPE } from '../../infra/constructs/fence-installer.js';
import { resolveDeployment } from '../../infra/deployment/deployment.js';
import { FUNCTIONS_RULES_SCRIPT, INSTALLER_RULES_SCRIPT } from '../../src/families/access-rules.js';
import { awsSolutionsFindings, serverlessFindings } from './support/nag.js';
import { type Synthesized, synthStack } from './support/synth.js';
import {
  environmentOf,
  getAtt,
  onlyResource,
  projectFunctions,
  resourcesOf,
} from './support/template.js';

let synthesized: Synthesized;
let template: Synthesized['template'];

beforeAll(() => {
  synthesized = synthStack({
    cache: { kind: 'serverless', dataStorageMaxGb: 5, ecpuPerSecondMax: 20_000 },
  });
  template = synthesized.template;
});

describe('cache=serverless', () => {
  it('is one Valkey Serverless cache with the usage limits, in the isolated subnets, behind RBAC', () => {
    template.resourceCountIs('AWS::ElastiCache::ReplicationGroup', 0);
    template.resourceCountIs('AWS::ElastiCache::ParameterGroup', 0);
    const [, cache] = onlyResource(template, 'AWS::ElastiCache::ServerlessCache');
    const [groupId, group] = onlyResource(template, 'AWS::ElastiCache::UserGroup');
    const [sgId] = onlyResource(template, 'AWS::EC2::SecurityGroup', 'CacheSecurityGroup');
    expect(cache.Properties).toMatchObject({
      Engine: 'valkey',
      MajorEngineVersion: '8',
      CacheUsageLimits: {
        DataStorage: { Maximum: 5, Unit: 'GB' },
        ECPUPerSecond: { Maximum: 20_000 },
      },
      UserGroupId: group.Properties.UserGroupId,
      SecurityGroupIds: [getAtt(sgId, 'GroupId')],
    });
    expect(cache.DependsOn).toContain(groupId);
    const subnets = (cache.Properties.SubnetIds as { Ref: string }[]).map((id) => id.Ref);
    expect(subnets).toHaveLength(2);
    for (const id of subnets) expect(id).toMatch(/^NetworkVpccacheSubnet/);
    template.hasResourceProperties('AWS::ElastiCache::User', {
      UserName: 'emq-app',
      AccessString: FUNCTIONS_RULES_SCRIPT,
    });
    expect(SERVERLESS_ACCESS_STRING).toBe(FUNCTIONS_RULES_SCRIPT);
  });

  it('gives the functions the script family: EVALSHA and SCRIPT LOAD, no FCALL, FUNCTION or WAIT', () => {
    const grants = FUNCTIONS_RULES_SCRIPT.split(' ');
    expect(grants).toEqual(expect.arrayContaining(['+evalsha)', '+script|load', '+script|exists']));
    for (const absent of ['+fcall', '+fcall)', '+fcall_ro', '+wait', '+eval', '+function|load']) {
      expect(grants).not.toContain(absent);
    }
  });

  it('gives the installer its own RBAC user and secret, read by the fence function alone', () => {
    template.hasResourceProperties('AWS::ElastiCache::User', {
      UserName: 'emq-installer',
      AccessString: INSTALLER_RULES_SCRIPT,
    });
    const [secretId] = onlyResource(
      template,
      'AWS::SecretsManager::Secret',
      'CacheInstallerCredentials',
    );
    // The rotation function, which changes this user's password, is the only other reader.
    const readers = Object.keys(resourcesOf(template, 'AWS::IAM::Policy')).filter(
      (id) =>
        !id.includes('RotationFunction') &&
        JSON.stringify(resourcesOf(template, 'AWS::IAM::Policy')[id]?.Properties).includes(
          `"Ref":"${secretId}"`,
        ),
    );
    expect(readers).toHaveLength(1);
    expect(readers[0]).toMatch(/Fence/);
  });

  it('points the functions at its one TLS endpoint, cluster mode, the script family, no WAIT', () => {
    const [cacheId] = onlyResource(template, 'AWS::ElastiCache::ServerlessCache');
    for (const fn of Object.values(projectFunctions(template))) {
      expect(environmentOf(fn)).toMatchObject({
        EMQ_URL: {
          'Fn::Join': [
            '',
            [
              'rediss://',
              getAtt(cacheId, 'Endpoint.Address'),
              ':',
              getAtt(cacheId, 'Endpoint.Port'),
            ],
          ],
        },
        EMQ_CLUSTER: 'true',
        EMQ_EXECUTOR: 'script',
        // Serverless has no WAIT.
        EMQ_ACK_REPLICAS: '0',
      });
    }
  });

  it('refuses acknowledging replicas, naming why', () => {
    expect(
      resolveDeployment({ cache: { kind: 'serverless' }, settings: { ackReplicas: 1 } }).problems,
    ).toEqual([
      'ackReplicas (1) must be 0 on cache=serverless: ElastiCache Serverless has no WAIT (it replicates inside the service), so no write could be confirmed by a replica.',
    ]);
  });

  it('admits the functions on the endpoint and reader ports only', () => {
    const [cacheSg] = onlyResource(template, 'AWS::EC2::SecurityGroup', 'CacheSecurityGroup');
    const [functionsSg] = onlyResource(
      template,
      'AWS::EC2::SecurityGroup',
      'FunctionsSecurityGroup',
    );
    const ingress = Object.values(resourcesOf(template, 'AWS::EC2::SecurityGroupIngress')).filter(
      (rule) =>
        JSON.stringify(rule.Properties.GroupId) === JSON.stringify(getAtt(cacheSg, 'GroupId')),
    );
    expect(ingress.map((rule) => rule.Properties)).toEqual([
      expect.objectContaining({
        FromPort: 6379,
        ToPort: 6380,
        SourceSecurityGroupId: getAtt(functionsSg, 'GroupId'),
      }),
    ]);
  });

  it('installs the fence against the single endpoint once the cache exists', () => {
    const [cacheId] = onlyResource(template, 'AWS::ElastiCache::ServerlessCache');
    const [, fence] = onlyResource(template, FENCE_RESOURCE_TYPE);
    expect(fence.Properties).toMatchObject({ Executor: 'script' });
    expect(fence.DependsOn).toContain(cacheId);
  });

  it('alarms on evictions and on data stored above 80 % of the storage limit', () => {
    const cacheAlarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).filter(
      (alarm) => JSON.stringify(alarm.Properties).includes('AWS/ElastiCache'),
    );
    const described = cacheAlarms.map((alarm) => [
      JSON.stringify(alarm.Properties).match(/"MetricName":"(\w+)"/)?.[1],
      alarm.Properties.Threshold,
    ]);
    expect(described.sort()).toEqual([
      ['BytesUsedForCache', 80],
      ['Evictions', 1],
    ]);
    const memory = cacheAlarms.find((alarm) =>
      JSON.stringify(alarm.Properties).includes('BytesUsedForCache'),
    );
    expect(JSON.stringify(memory?.Properties)).toContain('100 * bytes / 5000000000');
  });
});

describe('dashboard', () => {
  it('shows requests, outcomes, latency p50/p99, batch failures, DLQ depth, cache CPU, memory and evictions', () => {
    const [, dashboard] = onlyResource(template, 'AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const needle of [
      'MetricName=\\\\\\"Requests\\\\\\"',
      'MetricName=\\\\\\"Records\\\\\\"',
      'MetricName=\\\\\\"Latency\\\\\\"',
      'p50',
      'p99',
      'BatchItemFailures',
      'ApproximateNumberOfMessagesVisible',
      'ElastiCacheProcessingUnits',
      'BytesUsedForCache',
      'Evictions',
      'EchoMQ/Lambda',
    ]) {
      expect(body).toContain(needle);
    }
    const [dlq] = onlyResource(template, 'AWS::SQS::Queue', 'DeadLetters');
    // The DLQ depth graph reads this stack's DLQ.
    expect(body).toContain(JSON.stringify(getAtt(dlq, 'QueueName')));
  });
});

describe('cdk-nag', () => {
  it('finds nothing unacknowledged in the AwsSolutions pack', () => {
    expect(awsSolutionsFindings(synthesized.stack)).toEqual([]);
    expect(serverlessFindings(synthesized.stack)).toEqual([]);
  });
});
