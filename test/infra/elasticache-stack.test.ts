// The default stack (cache=elasticache, IAM auth), synthesized once, checked property by property.
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ACCESS_STRING } from '../../infra/cache/elasticache/spec.js';
import { FENCE_RESOURCE_TYPE } from '../../infra/constructs/fence-installer.js';
import { INSTALLER_RULES_FUNCTION } from '../../src/families/access-rules.js';
import { loadConfig } from '../../src/index.js';
import { VARIABLES } from '../../src/settings/settings-table.js';
import { acknowledgmentsIn, awsSolutionsFindings, serverlessFindings } from './support/nag.js';
import { type Synthesized, synthStack } from './support/synth.js';
import {
  environmentOf,
  getAtt,
  onlyResource,
  projectFunctions,
  type Resource,
  ref,
  resourcesOf,
} from './support/template.js';

let synthesized: Synthesized;
let template: Synthesized['template'];
let cacheSg: string;
let functionsSg: string;

beforeAll(() => {
  synthesized = synthStack();
  template = synthesized.template;
  [cacheSg] = onlyResource(template, 'AWS::EC2::SecurityGroup', 'CacheSecurityGroup');
  [functionsSg] = onlyResource(template, 'AWS::EC2::SecurityGroup', 'FunctionsSecurityGroup');
});

function functionNamed(hint: string): [string, Resource] {
  const found = Object.entries(projectFunctions(template)).find(([id]) => id.includes(hint));
  if (found === undefined) throw new Error(`no function ${hint}`);
  return found;
}

describe('ElastiCache for Valkey', () => {
  it('runs Valkey 9.1 in cluster mode with the shards and replicas of the defaults, on the node type durability needs', () => {
    template.hasResourceProperties('AWS::ElastiCache::ReplicationGroup', {
      Engine: 'valkey',
      EngineVersion: '9.1',
      ClusterMode: 'enabled',
      CacheParameterGroupName: ref(onlyResource(template, 'AWS::ElastiCache::ParameterGroup')[0]),
      NumNodeGroups: 2,
      ReplicasPerNodeGroup: 1,
      CacheNodeType: 'cache.m7g.large',
    });
  });

  it('keeps a synchronous durability log: an acknowledged write is in the Multi-AZ log', () => {
    template.hasResourceProperties('AWS::ElastiCache::ReplicationGroup', { Durability: 'sync' });
  });

  it('deploys its own parameter group: cluster mode, noeviction, rows up to 1 KiB as listpacks, the family of the engine version', () => {
    template.hasResourceProperties('AWS::ElastiCache::ParameterGroup', {
      CacheParameterGroupFamily: 'valkey9',
      Properties: {
        'cluster-enabled': 'yes',
        'maxmemory-policy': 'noeviction',
        'hash-max-listpack-value': '1024',
      },
    });
  });

  it('is Multi-AZ with automatic failover', () => {
    template.hasResourceProperties('AWS::ElastiCache::ReplicationGroup', {
      MultiAZEnabled: true,
      AutomaticFailoverEnabled: true,
    });
  });

  it('requires TLS in transit and encrypts at rest', () => {
    template.hasResourceProperties('AWS::ElastiCache::ReplicationGroup', {
      TransitEncryptionEnabled: true,
      TransitEncryptionMode: 'required',
      AtRestEncryptionEnabled: true,
    });
  });

  it('admits only its RBAC user group, whose app user reads its password from Secrets Manager', () => {
    const [groupId, group] = onlyResource(template, 'AWS::ElastiCache::UserGroup');
    const [, replication] = onlyResource(template, 'AWS::ElastiCache::ReplicationGroup');
    expect(replication.Properties.UserGroupIds).toEqual([group.Properties.UserGroupId]);
    expect(replication.DependsOn).toContain(groupId);
    const [secretId] = onlyResource(template, 'AWS::SecretsManager::Secret', 'CacheCredentials');
    template.hasResourceProperties('AWS::ElastiCache::User', {
      UserName: 'emq-app',
      AccessString: DEFAULT_ACCESS_STRING,
      Passwords: [
        {
          'Fn::Join': [
            '',
            ['{{resolve:secretsmanager:', ref(secretId), ':SecretString:password::}}'],
          ],
        },
      ],
    });
  });

  it('gives the installer its own RBAC user in the group, with its own secret and the installer rules', () => {
    const [, group] = onlyResource(template, 'AWS::ElastiCache::UserGroup');
    const [userId, user] = onlyResource(template, 'AWS::ElastiCache::User', 'InstallerUser');
    const [secretId] = onlyResource(
      template,
      'AWS::SecretsManager::Secret',
      'CacheInstallerCredentials',
    );
    expect(user.Properties.UserName).toBe('emq-installer');
    expect(user.Properties.AccessString).toBe(INSTALLER_RULES_FUNCTION);
    expect(JSON.stringify(user.Properties.Passwords)).toContain(`"Ref":"${secretId}"`);
    expect(group.Properties.UserIds).toContainEqual(user.Properties.UserId);
    expect(group.DependsOn).toContain(userId);
  });

  it('switches the default user off', () => {
    template.hasResourceProperties('AWS::ElastiCache::User', {
      UserName: 'default',
      AccessString: 'off -@all',
    });
  });

  it('lives in the isolated cache subnets, not the functions subnets', () => {
    const [, subnetGroup] = onlyResource(template, 'AWS::ElastiCache::SubnetGroup');
    const ids = (subnetGroup.Properties.SubnetIds as { Ref: string }[]).map((id) => id.Ref);
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(id).toMatch(/^NetworkVpccacheSubnet/);
    const subnets = resourcesOf(template, 'AWS::EC2::Subnet');
    for (const id of ids) expect(subnets[id]?.Properties.MapPublicIpOnLaunch).toBe(false);
  });

  it('admits connections from the functions security group only, on the cache port', () => {
    const ingress = Object.values(resourcesOf(template, 'AWS::EC2::SecurityGroupIngress')).filter(
      (rule) =>
        JSON.stringify(rule.Properties.GroupId) === JSON.stringify(getAtt(cacheSg, 'GroupId')),
    );
    expect(ingress.map((rule) => rule.Properties)).toEqual([
      expect.objectContaining({
        IpProtocol: 'tcp',
        FromPort: 6379,
        ToPort: 6379,
        SourceSecurityGroupId: getAtt(functionsSg, 'GroupId'),
      }),
    ]);
    const [, group] = onlyResource(template, 'AWS::EC2::SecurityGroup', 'CacheSecurityGroup');
    expect(group.Properties.SecurityGroupIngress).toBeUndefined();
  });
});

describe('functions', () => {
  it('are the http, sqs and fence bundles on nodejs22.x and arm64', () => {
    const functions = Object.values(projectFunctions(template));
    expect(functions).toHaveLength(3);
    for (const fn of functions) {
      expect(fn.Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'] });
    }
  });

  it('run in the functions subnets with the functions security group', () => {
    for (const fn of Object.values(projectFunctions(template))) {
      const vpc = fn.Properties.VpcConfig as {
        SecurityGroupIds: unknown[];
        SubnetIds: { Ref: string }[];
      };
      expect(vpc.SecurityGroupIds).toEqual([getAtt(functionsSg, 'GroupId')]);
      for (const subnet of vpc.SubnetIds) expect(subnet.Ref).toMatch(/^NetworkVpcfunctionsSubnet/);
    }
  });

  it('write to their own log group that keeps events 30 days', () => {
    const logGroups = resourcesOf(template, 'AWS::Logs::LogGroup');
    for (const fn of Object.values(projectFunctions(template))) {
      const { LogGroup } = fn.Properties.LoggingConfig as { LogGroup: { Ref: string } };
      expect(logGroups[LogGroup.Ref]?.Properties.RetentionInDays).toBe(30);
    }
  });

  it('talk to the configuration endpoint over TLS with the function family in cluster mode', () => {
    const [replication] = onlyResource(template, 'AWS::ElastiCache::ReplicationGroup');
    for (const fn of Object.values(projectFunctions(template))) {
      expect(environmentOf(fn)).toMatchObject({
        EMQ_URL: {
          'Fn::Join': [
            '',
            [
              'rediss://',
              getAtt(replication, 'ConfigurationEndPoint.Address'),
              ':',
              getAtt(replication, 'ConfigurationEndPoint.Port'),
            ],
          ],
        },
        EMQ_CLUSTER: 'true',
        EMQ_EXECUTOR: 'function',
      });
    }
  });

  it('send no WAIT, since the synchronous log is the acknowledgement', () => {
    for (const fn of Object.values(projectFunctions(template))) {
      expect(environmentOf(fn)).toMatchObject({
        EMQ_ACK_REPLICAS: '0',
        EMQ_ACK_TIMEOUT_MS: '1000',
      });
    }
  });

  it('carry the secret ARN, never a password or a resolved secret, in their environment', () => {
    const [secretId] = onlyResource(template, 'AWS::SecretsManager::Secret', 'CacheCredentials');
    const [installerId] = onlyResource(
      template,
      'AWS::SecretsManager::Secret',
      'CacheInstallerCredentials',
    );
    for (const [id, fn] of Object.entries(projectFunctions(template))) {
      const environment = environmentOf(fn);
      // The fence installer connects as its own RBAC user, with its own secret.
      expect(environment.EMQ_SECRET_ARN).toEqual(
        ref(id.includes('Fence') ? installerId : secretId),
      );
      expect(Object.keys(environment)).not.toContain('EMQ_PASSWORD');
      expect(JSON.stringify(environment)).not.toMatch(/resolve:secretsmanager|password/i);
    }
  });

  it('may read their own credentials secret only: the functions theirs, the installer its own', () => {
    const readersOf = (hint: string): string[] => {
      const [secretId] = onlyResource(template, 'AWS::SecretsManager::Secret', hint);
      // The rotation function changes both users' passwords, so it reads both secrets too.
      return Object.entries(resourcesOf(template, 'AWS::IAM::Policy'))
        .filter(([id]) => !id.includes('RotationFunction'))
        .filter(([, policy]) => JSON.stringify(policy.Properties).includes(`"Ref":"${secretId}"`))
        .map(([id, policy]) => {
          expect(JSON.stringify(policy.Properties)).toContain('secretsmanager:GetSecretValue');
          return id;
        });
    };
    const functions = readersOf('CacheCredentials');
    const installer = readersOf('CacheInstallerCredentials');
    // The http and sqs functions' roles; the fence installer's role alone.
    expect(functions).toHaveLength(2);
    expect(functions.some((id) => id.includes('Fence'))).toBe(false);
    expect(installer).toHaveLength(1);
    expect(installer[0]).toMatch(/Fence/);
  });

  it('get only EMQ_* names of the settings table, which loadConfig reads, and values it accepts', () => {
    const stand_ins: Record<string, string> = {
      EMQ_URL: 'rediss://clustercfg.emq.example:6379',
      EMQ_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:emq-AbCdEf',
      EMQ_DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/dlq',
    };
    for (const fn of Object.values(projectFunctions(template))) {
      const environment = Object.fromEntries(
        Object.entries(environmentOf(fn)).map(([name, value]) => [
          name,
          typeof value === 'string' ? value : stand_ins[name],
        ]),
      );
      for (const name of Object.keys(environment)) {
        expect(VARIABLES).toContain(name);
      }
      expect(() => loadConfig(environment)).not.toThrow();
    }
  });
});

describe('SQS face', () => {
  it('reads the source queue in batches of 10 with partial batch responses and bounded concurrency', () => {
    const [sqsFunction] = functionNamed('Sqs');
    const [queue] = onlyResource(template, 'AWS::SQS::Queue', 'Source');
    // The event source invokes the alias `live` of the SQS function's published version.
    const [alias] = onlyResource(template, 'AWS::Lambda::Alias', 'SqsLive');
    template.hasResourceProperties('AWS::Lambda::Alias', {
      FunctionName: ref(sqsFunction),
      Name: 'live',
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: {
        'Fn::Join': ['', [{ 'Fn::Select': [6, { 'Fn::Split': [':', ref(alias)] }] }, ':live']],
      },
      EventSourceArn: getAtt(queue, 'Arn'),
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 10 },
    });
  });

  it('starts polling only once the fence is installed', () => {
    const [fence] = onlyResource(template, FENCE_RESOURCE_TYPE);
    const [, mapping] = onlyResource(template, 'AWS::Lambda::EventSourceMapping');
    expect(mapping.DependsOn).toContain(fence);
  });

  it('hides a message at least 6 times the function timeout', () => {
    const [, fn] = functionNamed('Sqs');
    const [, queue] = onlyResource(template, 'AWS::SQS::Queue', 'Source');
    expect(queue.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(
      6 * Number(fn.Properties.Timeout),
    );
  });

  it('moves a message to the DLQ after 5 receives', () => {
    const [dlq] = onlyResource(template, 'AWS::SQS::Queue', 'DeadLetters');
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { deadLetterTargetArn: getAtt(dlq, 'Arn'), maxReceiveCount: 5 },
    });
  });

  it('tells the function where the DLQ is and lets it send there', () => {
    const [dlq] = onlyResource(template, 'AWS::SQS::Queue', 'DeadLetters');
    const [, fn] = functionNamed('Sqs');
    expect(environmentOf(fn)).toMatchObject({
      EMQ_DLQ_URL: ref(dlq),
      EMQ_DEFAULT_QUEUE: 'default',
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: Match.arrayWith(['sqs:SendMessage']),
            Resource: getAtt(dlq, 'Arn'),
          }),
        ]),
      },
    });
  });

  it('encrypts both queues and refuses requests without TLS', () => {
    const queues = resourcesOf(template, 'AWS::SQS::Queue');
    expect(Object.keys(queues)).toHaveLength(2);
    for (const [id, queue] of Object.entries(queues)) {
      expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [ref(id)],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sqs:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
  });
});

describe('network', () => {
  it('has interface endpoints for SQS and Secrets Manager with private DNS', () => {
    const services = Object.values(resourcesOf(template, 'AWS::EC2::VPCEndpoint')).map(
      (endpoint) => {
        expect(endpoint.Properties).toMatchObject({
          VpcEndpointType: 'Interface',
          PrivateDnsEnabled: true,
        });
        return JSON.stringify(endpoint.Properties.ServiceName);
      },
    );
    expect(services).toHaveLength(2);
    expect(services.some((name) => name.includes('.sqs'))).toBe(true);
    expect(services.some((name) => name.includes('.secretsmanager'))).toBe(true);
  });

  it('has neither NAT gateway nor internet gateway', () => {
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    template.resourceCountIs('AWS::EC2::InternetGateway', 0);
  });

  it('logs rejected traffic', () => {
    template.hasResourceProperties('AWS::EC2::FlowLog', { TrafficType: 'REJECT' });
  });
});

describe('HTTP API', () => {
  it('routes every operation of the OpenAPI document with IAM authorization', () => {
    const routes = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Route')).map(
      (route) => `${route.Properties.RouteKey} ${route.Properties.AuthorizationType}`,
    );
    expect(routes.sort()).toEqual([
      'GET /queues/{queue}/jobs/{id} AWS_IAM',
      'HEAD /queues/{queue}/jobs/{id} AWS_IAM',
      'POST /queues/{queue}/jobs AWS_IAM',
      'POST /queues/{queue}/jobs/batch AWS_IAM',
      'PUT /queues/{queue}/jobs/{id} AWS_IAM',
    ]);
  });

  it('throttles the stage and writes access logs', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
      AccessLogSettings: {
        DestinationArn: Match.anyValue(),
        Format: Match.stringLikeRegexp('requestId'),
      },
    });
  });
});

describe('fence installer', () => {
  it('installs the wire identity through the fence bundle once the cache and network exist', () => {
    const [, fence] = onlyResource(template, FENCE_RESOURCE_TYPE);
    const [replication] = onlyResource(template, 'AWS::ElastiCache::ReplicationGroup');
    const [endpoint] = onlyResource(template, 'AWS::EC2::VPCEndpoint', 'SecretsManager');
    expect(fence.Properties).toMatchObject({ Wire: '1', Executor: 'function' });
    expect(fence.DependsOn).toEqual(expect.arrayContaining([replication, endpoint]));
    const [, onEvent] = functionNamed('FenceOnEvent');
    expect(onEvent.Properties.Timeout).toBe(300);
  });
});

describe('alarms and outputs', () => {
  it('alarm on a non-empty DLQ, the backlog age, function errors and throttles, and API 5xx', () => {
    const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'))
      .filter((alarm) => alarm.Properties.MetricName !== undefined)
      .map((alarm) => `${alarm.Properties.Namespace} ${alarm.Properties.MetricName}`);
    expect(alarms.sort()).toEqual([
      'AWS/ApiGateway 5xx',
      'AWS/Lambda Errors',
      'AWS/Lambda Errors',
      'AWS/Lambda Throttles',
      'AWS/Lambda Throttles',
      'AWS/SQS ApproximateAgeOfOldestMessage',
      'AWS/SQS ApproximateNumberOfMessagesVisible',
    ]);
  });

  it('alarm on evictions, memory above 80 %, replication lag and log throttling, over every node', () => {
    const [replication] = onlyResource(template, 'AWS::ElastiCache::ReplicationGroup');
    const cacheAlarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).filter(
      (alarm) => alarm.Properties.Metrics !== undefined,
    );
    const byMetric = new Map(
      cacheAlarms.map((alarm) => {
        const metrics = alarm.Properties.Metrics as {
          Expression?: string;
          MetricStat?: { Metric: { MetricName: string; Dimensions: { Value: unknown }[] } };
        }[];
        const stats = metrics.flatMap((m) => (m.MetricStat === undefined ? [] : [m.MetricStat]));
        const name = stats[0]?.Metric.MetricName ?? '';
        return [name, { alarm, stats, expression: metrics.find((m) => m.Expression)?.Expression }];
      }),
    );
    // With sync the log's lag and buffer refusals are always 0 (AWS): only throttling is watched.
    expect([...byMetric.keys()].sort()).toEqual([
      'DatabaseMemoryUsagePercentage',
      'Evictions',
      'ReplicationLag',
      'TrafficManagementActive',
    ]);
    // 2 shards x (1 primary + 1 replica): every node, named <group>-<shard>-<node>.
    const nodeId = (shard: string, node: string) => ({
      'Fn::Join': ['', [ref(replication), `-${shard}-${node}`]],
    });
    expect(byMetric.get('Evictions')?.stats.map((s) => s.Metric.Dimensions[0]?.Value)).toEqual([
      nodeId('0001', '001'),
      nodeId('0001', '002'),
      nodeId('0002', '001'),
      nodeId('0002', '002'),
    ]);
    expect(byMetric.get('Evictions')?.expression).toBe('MAX([m0,m1,m2,m3])');
    expect(byMetric.get('Evictions')?.alarm.Properties.Threshold).toBe(1);
    expect(byMetric.get('DatabaseMemoryUsagePercentage')?.alarm.Properties.Threshold).toBe(80);
    expect(
      byMetric.get('TrafficManagementActive')?.stats.map((s) => s.Metric.Dimensions[0]?.Value),
    ).toHaveLength(4);
    expect(byMetric.get('TrafficManagementActive')?.alarm.Properties.Threshold).toBe(1);
    // Replicas only: a primary has no lag.
    expect(byMetric.get('ReplicationLag')?.stats.map((s) => s.Metric.Dimensions[0]?.Value)).toEqual(
      [nodeId('0001', '002'), nodeId('0002', '002')],
    );
  });

  it('output the API URL, the queue URLs, the cache endpoint, the functions and their group', () => {
    expect(Object.keys(template.findOutputs('*')).sort()).toEqual([
      'ApiUrl',
      'CacheEndpoint',
      'DeadLetterQueueUrl',
      'FunctionsSecurityGroupId',
      'HttpFunctionArn',
      'QueueUrl',
      'SqsFunctionArn',
    ]);
  });
});

describe('cdk-nag', () => {
  it('finds nothing unacknowledged in the AwsSolutions pack', () => {
    expect(awsSolutionsFindings(synthesized.stack)).toEqual([]);
    expect(serverlessFindings(synthesized.stack)).toEqual([]);
  });

  it('has a reason of at least a sentence for every acknowledgment', () => {
    const acknowledgments = acknowledgmentsIn(synthesized.stack);
    expect(acknowledgments.length).toBeGreaterThan(0);
    for (const { reason } of acknowledgments) expect(reason.length).toBeGreaterThanOrEqual(40);
  });
});
