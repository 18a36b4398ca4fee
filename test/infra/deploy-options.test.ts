// The knobs a platform team expects: cache=existing in its own VPC, SQS batching and
// provisioned pollers, FIFO, the runtime, and the checks that refuse what cannot work.
import { beforeAll, describe, expect, it } from 'vitest';
import { parameterGroupFamily } from '../../infra/cache/elasticache/parameters.js';
import { deploymentFromContext } from '../../infra/deployment/context.js';
import { resolveDeployment } from '../../infra/deployment/deployment.js';
import { awsSolutionsFindings, serverlessFindings } from './support/nag.js';
import { type Synthesized, synthStack } from './support/synth.js';
import { environmentOf, onlyResource, projectFunctions, resourcesOf } from './support/template.js';

const contextOf =
  (values: Record<string, unknown>) =>
  (key: string): unknown =>
    values[key];
const existing = { kind: 'existing', urls: ['valkey.internal.example:6380'] } as const;
const SUBNETS = ['subnet-0aaa1111bbbb2222c', 'subnet-0ddd3333eeee4444f'];

describe('cache=existing in the user VPC, with a security group the stack creates', () => {
  let synthesized: Synthesized;
  let template: Synthesized['template'];
  beforeAll(() => {
    synthesized = synthStack({
      cache: existing,
      network: { vpcId: 'vpc-0123456789abcdef0', subnetIds: SUBNETS },
      runtime: 'nodejs24.x',
      sqs: { batchSize: 500, maxBatchingWindowSeconds: 5, provisionedPollers: { min: 2, max: 20 } },
    });
    template = synthesized.template;
  });

  it('builds no VPC, subnets, endpoints or flow logs of its own', () => {
    for (const type of ['VPC', 'Subnet', 'VPCEndpoint', 'FlowLog', 'NatGateway']) {
      template.resourceCountIs(`AWS::EC2::${type}`, 0);
    }
  });

  it('runs the functions in the named subnets with a group created inside that VPC', () => {
    const [groupId, group] = onlyResource(template, 'AWS::EC2::SecurityGroup');
    expect(group.Properties.VpcId).toBe('vpc-0123456789abcdef0');
    // Valkey's port, and HTTPS to the VPC's own way out to SQS and Secrets Manager.
    expect(
      (group.Properties.SecurityGroupEgress as { FromPort: number }[])
        .map((r) => r.FromPort)
        .sort(),
    ).toEqual([443, 6380]);
    for (const fn of Object.values(projectFunctions(template))) {
      expect(fn.Properties.VpcConfig).toEqual({
        SubnetIds: SUBNETS,
        SecurityGroupIds: [{ 'Fn::GetAtt': [groupId, 'GroupId'] }],
      });
      expect(fn.Properties.Runtime).toBe('nodejs24.x');
      expect(environmentOf(fn)).toMatchObject({ EMQ_EXECUTOR: 'auto', EMQ_ACK_REPLICAS: '0' });
    }
  });

  it('batches up to 500 records in a 5 s window with provisioned pollers instead of a concurrency cap', () => {
    const [, mapping] = onlyResource(template, 'AWS::Lambda::EventSourceMapping');
    expect(mapping.Properties).toMatchObject({
      BatchSize: 500,
      MaximumBatchingWindowInSeconds: 5,
      ProvisionedPollerConfig: { MinimumPollers: 2, MaximumPollers: 20 },
    });
    expect(mapping.Properties.ScalingConfig).toBeUndefined();
  });

  it('passes cdk-nag', () => {
    expect(awsSolutionsFindings(synthesized.stack)).toEqual([]);
    expect(serverlessFindings(synthesized.stack)).toEqual([]);
  });
});

describe("cache=existing with the user's security groups", () => {
  it('uses them as they are, and creates interface endpoints only when asked', () => {
    const { stack, template } = synthStack({
      cache: existing,
      network: {
        vpcId: 'vpc-0123456789abcdef0',
        subnetIds: SUBNETS,
        securityGroupIds: ['sg-0123456789abcdef0', 'sg-0fedcba9876543210'],
        interfaceEndpoints: true,
      },
      sqs: { fifo: true },
    });
    for (const fn of Object.values(projectFunctions(template))) {
      expect((fn.Properties.VpcConfig as { SecurityGroupIds: unknown }).SecurityGroupIds).toEqual([
        'sg-0123456789abcdef0',
        'sg-0fedcba9876543210',
      ]);
    }
    // No rule is added to a group the user owns.
    template.resourceCountIs('AWS::EC2::SecurityGroupEgress', 0);
    const endpoints = Object.values(resourcesOf(template, 'AWS::EC2::VPCEndpoint'));
    expect(endpoints).toHaveLength(2);
    for (const endpoint of endpoints) {
      expect(endpoint.Properties).toMatchObject({
        VpcId: 'vpc-0123456789abcdef0',
        SubnetIds: SUBNETS,
      });
    }
    const queues = Object.values(resourcesOf(template, 'AWS::SQS::Queue'));
    expect(queues.map((queue) => queue.Properties.FifoQueue)).toEqual([true, true]);
    expect(awsSolutionsFindings(stack)).toEqual([]);
    expect(serverlessFindings(stack)).toEqual([]);
  });
});

describe('checks', () => {
  it('keeps the idempotency record beyond the redelivery window, naming the values to change', () => {
    const { problems } = resolveDeployment({
      settings: { dedupeTtlMs: 1_000_000 },
      sqs: { visibilityTimeoutSeconds: 300, maxReceiveCount: 10 },
    });
    expect(problems).toEqual([
      'dedupeTtlMs (EMQ_DEDUPE_TTL_MS, 1000000) must be at least the span over which the source queue can deliver one message again, visibilityTimeoutSeconds (300) × 1000 × maxReceiveCount (10) + 300000 = 3300000: a later redelivery would be a second job. Raise dedupeTtlMs, or lower visibilityTimeoutSeconds or maxReceiveCount.',
    ]);
    expect(
      resolveDeployment({
        settings: { dedupeTtlMs: 3_300_000 },
        sqs: { visibilityTimeoutSeconds: 300, maxReceiveCount: 10 },
      }).problems,
    ).toEqual([]);
  });

  it('refuses batching knobs that Lambda would refuse, all at once', () => {
    expect(resolveDeployment({ sqs: { batchSize: 100 } }).problems).toEqual([
      'batchSize 100 needs maxBatchingWindowSeconds (1 to 300): Lambda requires a batching window above 10 records.',
    ]);
    expect(
      resolveDeployment({ sqs: { fifo: true, batchSize: 20, maxBatchingWindowSeconds: 2 } })
        .problems,
    ).toEqual([
      'batchSize must be a whole number from 1 to 10.',
      'maxBatchingWindowSeconds is not allowed on a FIFO queue (Lambda offers no batching window there); remove it.',
    ]);
    expect(
      resolveDeployment({ sqs: { maxConcurrency: 5, provisionedPollers: { min: 30, max: 3 } } })
        .problems,
    ).toEqual([
      'provisionedPollers and maxConcurrency are exclusive: choose one (provisioned mode scales by pollers).',
      'provisionedPollers must be min,max with min <= max.',
    ]);
  });

  it('refuses more acknowledging replicas than the shards have', () => {
    expect(
      resolveDeployment({
        cache: { kind: 'elasticache', replicasPerShard: 1 },
        settings: { ackReplicas: 2 },
      }).problems,
    ).toEqual([
      'ackReplicas (2) exceeds the replicas per shard of cache=elasticache (1): every write would answer EMQ_UNCONFIRMED; lower ackReplicas or add replicas.',
    ]);
  });

  it('takes a user VPC for cache=existing only, with subnets', () => {
    expect(
      resolveDeployment({ network: { vpcId: 'vpc-0123456789abcdef0', subnetIds: ['subnet-1'] } })
        .problems,
    ).toEqual([
      'vpcId applies only to cache=existing (cache=elasticache builds its own VPC).',
      'vpcId needs subnetIds: at least two subnets of that VPC, in different AZs, with a route to Valkey.',
      'subnetIds entry subnet-1 must be a subnet id (subnet-...).',
    ]);
  });
});

describe('parameter group family', () => {
  it('follows the major version of every Valkey engine ElastiCache offers, and refuses others', () => {
    expect(['7.2', '8.0', '8.2', '9.0', '9.1'].map(parameterGroupFamily)).toEqual([
      'valkey7',
      'valkey8',
      'valkey8',
      'valkey9',
      'valkey9',
    ]);
    expect(
      resolveDeployment({ cache: { kind: 'elasticache', engineVersion: '7.0' } }).problems,
    ).toEqual([
      'engineVersion must be a Valkey version ElastiCache offers: 7.2, 8.0 to 8.2, 9.0 or 9.1.',
    ]);
  });
});

describe('context keys', () => {
  it('names the closest known key for every unknown one, beside the other problems', () => {
    const values = {
      shard: '1',
      batchsize: '20',
      '@aws-cdk/core:newStyleStackSynthesis': true,
      'aws:cdk:enable-path-metadata': true,
      provisionedPollers: '2-20',
      runtime: 'nodejs18.x',
    };
    const { problems } = deploymentFromContext(contextOf(values), Object.keys(values));
    expect(problems).toEqual([
      "unknown context key 'shard': did you mean 'shards'?",
      "unknown context key 'batchsize': did you mean 'batchSize'?",
      'provisionedPollers must be min,max (for example 2,20).',
      "runtime must be one of nodejs22.x, nodejs24.x; got 'nodejs18.x'.",
    ]);
  });

  it('reads the new keys into the deployment', () => {
    const values = {
      cache: 'existing',
      valkeyEndpoint: 'v:6380',
      vpcId: 'vpc-0123456789abcdef0',
      subnetIds: SUBNETS.join(','),
      securityGroupIds: 'sg-0123456789abcdef0',
      provisionedPollers: '2,20',
      batchSize: '100',
      maxBatchingWindowSeconds: '3',
      runtime: 'nodejs24.x',
      ackReplicas: '1',
    };
    const { deployment, problems } = deploymentFromContext(contextOf(values), Object.keys(values));
    expect(problems).toEqual([]);
    expect(deployment).toMatchObject({
      network: {
        vpcId: 'vpc-0123456789abcdef0',
        subnetIds: SUBNETS,
        securityGroupIds: ['sg-0123456789abcdef0'],
      },
      sqs: { provisionedPollers: { min: 2, max: 20 }, batchSize: 100, maxBatchingWindowSeconds: 3 },
      runtime: 'nodejs24.x',
      settings: { ackReplicas: 1 },
    });
    expect(resolveDeployment(deployment).problems).toEqual([]);
  });
});
