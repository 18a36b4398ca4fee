// EchoMq in a user's stack: composed with the user's VPC, HTTP API, queue, DLQ and ElastiCache
// endpoint (as examples/existing-resources does), it wires those and creates none of its own;
// alone, it makes its own and keeps the stateful ones on delete. cdk-nag's AwsSolutions and
// Serverless packs find nothing unacknowledged either way.
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { EchoMqCache } from '../../infra/index.js';
import { OPERATIONS } from '../../openapi/operations.js';
import { type Composed, composeEchoMq } from './support/construct.js';
import { awsSolutionsFindings, serverlessFindings } from './support/nag.js';
import { environmentOf, onlyResource, projectFunctions, resourcesOf } from './support/template.js';

const QUEUE_ARN = 'arn:aws:sqs:eu-west-1:123456789012:jobs';
const DLQ_ARN = 'arn:aws:sqs:eu-west-1:123456789012:jobs-dlq';
const CACHE_GROUP = 'sg-0ccccccccccccccc0';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:jobs-cache-user-AbCdEf';

describe("composed with the user's API, queue, DLQ and cache", () => {
  let composed: Composed;
  let caller: iam.Role;
  beforeAll(() => {
    composed = composeEchoMq(
      (stack) => {
        caller = new iam.Role(stack, 'Producer', { assumedBy: new iam.AccountRootPrincipal() });
        return {
          cache: EchoMqCache.existing({
            endpoint: 'clustercfg.jobs.abc123.euw1.cache.amazonaws.com:6379',
            securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'CacheGroup', CACHE_GROUP),
            secret: secretsmanager.Secret.fromSecretCompleteArn(stack, 'CacheUser', SECRET_ARN),
          }),
          http: {
            api: apigwv2.HttpApi.fromHttpApiAttributes(stack, 'Api', { httpApiId: 'a1b2c3' }),
            authorizer: new HttpIamAuthorizer(),
          },
          sqs: {
            queue: sqs.Queue.fromQueueArn(stack, 'Jobs', QUEUE_ARN),
            deadLetterQueue: sqs.Queue.fromQueueArn(stack, 'JobsDlq', DLQ_ARN),
            redelivery: { visibilityTimeout: Duration.minutes(3), maxReceiveCount: 5 },
          },
        };
      },
      (echoMq) => {
        echoMq.grantEnqueue(caller);
        // The producer is the user's: the user acknowledges what its policy holds.
        for (const { method, path } of OPERATIONS) {
          Validations.of(caller).acknowledge({
            id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:eu-west-1:123456789012:a1b2c3/*/${method}${path.replace(/\{[^}]+\}/g, '*')}]`,
            reason:
              'Any stage, any queue and any job id of the one route: the path parameters are the wildcards.',
          });
        }
      },
    );
  });

  it('creates no API, queue or cache of its own', () => {
    for (const type of [
      'AWS::ApiGatewayV2::Api',
      'AWS::ApiGatewayV2::Stage',
      'AWS::SQS::Queue',
      'AWS::ElastiCache::ReplicationGroup',
      'AWS::ElastiCache::ServerlessCache',
      'AWS::EC2::Instance',
    ]) {
      composed.template.resourceCountIs(type, 0);
    }
  });

  it("routes every operation on the user's API, polls the user's queue, dead-letters to the user's DLQ", () => {
    const routes = Object.values(resourcesOf(composed.template, 'AWS::ApiGatewayV2::Route'));
    expect(routes.map((route) => route.Properties.ApiId)).toEqual(OPERATIONS.map(() => 'a1b2c3'));
    const [, mapping] = onlyResource(composed.template, 'AWS::Lambda::EventSourceMapping');
    expect(mapping.Properties.EventSourceArn).toBe(QUEUE_ARN);
    const sqsFunction = Object.values(projectFunctions(composed.template)).find(
      (fn) => environmentOf(fn).EMQ_DLQ_URL !== undefined,
    );
    expect(
      JSON.stringify(environmentOf(sqsFunction ?? { Type: '', Properties: {} }).EMQ_DLQ_URL),
    ).toContain('jobs-dlq');
  });

  it("opens the cache's security group to the functions' group on the cache port", () => {
    const [functionsGroup] = onlyResource(
      composed.template,
      'AWS::EC2::SecurityGroup',
      'FunctionsSecurityGroup',
    );
    composed.template.hasResourceProperties('AWS::EC2::SecurityGroupIngress', {
      GroupId: CACHE_GROUP,
      IpProtocol: 'tcp',
      FromPort: 6379,
      ToPort: 6379,
      SourceSecurityGroupId: { 'Fn::GetAtt': [functionsGroup, 'GroupId'] },
    });
  });

  it('lets the functions read the secret and connect to the endpoint', () => {
    for (const fn of Object.values(projectFunctions(composed.template))) {
      expect(environmentOf(fn)).toMatchObject({
        EMQ_URL: 'rediss://clustercfg.jobs.abc123.euw1.cache.amazonaws.com:6379',
        EMQ_SECRET_ARN: SECRET_ARN,
        EMQ_EXECUTOR: 'auto',
      });
    }
  });

  it('grants enqueue: invoke on each route of the API and send on the queue, nothing else', () => {
    const [, policy] = onlyResource(composed.template, 'AWS::IAM::Policy', 'ProducerDefaultPolicy');
    const statements = (
      policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }
    ).Statement;
    const invoke = statements.find((statement) => statement.Action === 'execute-api:Invoke');
    expect(invoke?.Resource).toHaveLength(OPERATIONS.length);
    expect(JSON.stringify(invoke?.Resource)).toContain('a1b2c3/*/POST/queues/*/jobs/batch');
    const send = statements.find((statement) =>
      JSON.stringify(statement.Action).includes('sqs:SendMessage'),
    );
    expect(send?.Resource).toBe(QUEUE_ARN);
    expect(statements).toHaveLength(2);
  });

  it('finds nothing unacknowledged in the AwsSolutions and Serverless packs', () => {
    expect(awsSolutionsFindings(composed.stack)).toEqual([]);
    expect(serverlessFindings(composed.stack)).toEqual([]);
  });
});

describe('alone in a stack: its own API, queues and ElastiCache cluster', () => {
  let composed: Composed;
  beforeAll(() => {
    composed = composeEchoMq(() => ({ cache: EchoMqCache.elastiCache() }));
  });

  it('keeps the cluster (a final snapshot) and the queues on delete and on replacement', () => {
    const [, group] = onlyResource(composed.template, 'AWS::ElastiCache::ReplicationGroup');
    expect(group).toMatchObject({ DeletionPolicy: 'Snapshot', UpdateReplacePolicy: 'Snapshot' });
    const queues = Object.values(resourcesOf(composed.template, 'AWS::SQS::Queue'));
    expect(queues).toHaveLength(2);
    for (const queue of queues) {
      expect(queue).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
  });

  it('finds nothing unacknowledged in the AwsSolutions and Serverless packs', () => {
    expect(awsSolutionsFindings(composed.stack)).toEqual([]);
    expect(serverlessFindings(composed.stack)).toEqual([]);
  });
});

describe('removalPolicy', () => {
  it('deletes a Serverless cache with a final snapshot by default (it takes no Snapshot policy)', () => {
    const { template } = composeEchoMq(() => ({ cache: EchoMqCache.serverless() }));
    const [, cache] = onlyResource(template, 'AWS::ElastiCache::ServerlessCache');
    expect(cache).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    // <cache name>-final-<the stack's UUID, the last part of its id>
    expect(cache.Properties.FinalSnapshotName).toEqual({
      'Fn::Join': [
        '-',
        [
          `${cache.Properties.ServerlessCacheName}-final`,
          { 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: 'AWS::StackId' }] }] },
        ],
      ],
    });
  });

  it('keeps a Serverless cache with RETAIN, and takes no final snapshot then', () => {
    const { template } = composeEchoMq(() => ({
      cache: EchoMqCache.serverless(),
      removalPolicy: RemovalPolicy.RETAIN,
    }));
    const [, cache] = onlyResource(template, 'AWS::ElastiCache::ServerlessCache');
    expect(cache).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(cache.Properties.FinalSnapshotName).toBeUndefined();
  });

  it('opts out: DESTROY deletes the cache and the queues with the stack', () => {
    const { template } = composeEchoMq(() => ({
      cache: EchoMqCache.elastiCache(),
      removalPolicy: RemovalPolicy.DESTROY,
    }));
    const stateful = [
      ...Object.values(resourcesOf(template, 'AWS::ElastiCache::ReplicationGroup')),
      ...Object.values(resourcesOf(template, 'AWS::SQS::Queue')),
    ];
    expect(stateful).toHaveLength(3);
    for (const resource of stateful) {
      expect(resource).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    }
  });
});
