/**
 * Every cache kind and face the construct composes, one stack each, in an app that installed
 * echomq-lambda: the node-based and Serverless ElastiCache, MemoryDB, a self-managed cluster on
 * Graviton and on x86_64 (each loading the module build the package ships), and an existing
 * cache behind a Function URL, on the team's REST API (imported) and on the team's HTTP API
 * whose default authorizer is a JWT one, with the team's own imported queue; there the team's
 * KMS key encrypts the cache user's secret, the queues and the log groups. cdk-nag's
 * AwsSolutions and Serverless packs run at synthesis, and a finding fails it. The package test
 * synthesizes this app, and CI lints its templates with cfn-lint (scripts/lint-templates.ts).
 * Run it with `CDK_OUTDIR=<folder> node app.js`.
 */
import { App, Duration, Stack, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { LambdaDeploymentConfig } from 'aws-cdk-lib/aws-codedeploy';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { EchoMq, EchoMqCache } from 'echomq-lambda/cdk';

const account = '123456789012';
const region = 'us-east-1';
const app = new App();

/** A stack in the account's existing VPC (imported by id: the VPC is not the construct's). */
function stackWithVpc(id: string): { stack: Stack; vpc: ec2.IVpc } {
  const stack = new Stack(app, id, { env: { account, region } });
  const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
    vpcId: 'vpc-0123456789abcdef0',
    availabilityZones: ['us-east-1a', 'us-east-1b', 'us-east-1c'],
    privateSubnetIds: [
      'subnet-0aaaaaaaaaaaaaaa0',
      'subnet-0bbbbbbbbbbbbbbb0',
      'subnet-0ccccccccccccccc0',
    ],
    // A self-managed cluster fixes each node's address in its subnet.
    privateSubnetIpv4CidrBlocks: ['10.0.0.0/20', '10.0.16.0/20', '10.0.32.0/20'],
  });
  return { stack, vpc };
}

const variants: Readonly<Record<string, (vpc: ec2.IVpc) => EchoMqCache>> = {
  ElastiCache: () => EchoMqCache.elastiCache(),
  Serverless: () => EchoMqCache.serverless(),
  MemoryDb: () => EchoMqCache.memoryDb(),
  SelfManagedGraviton: () => EchoMqCache.selfManaged(),
  SelfManagedX86: () => EchoMqCache.selfManaged({ instanceType: 'm7i.large' }),
};
for (const [id, cache] of Object.entries(variants)) {
  const { stack, vpc } = stackWithVpc(id);
  new EchoMq(stack, 'EchoMq', { vpc, cache: cache(vpc) });
}

/** The team's KMS key, which encrypts its secrets, queues and logs. */
const teamKeyArn = `arn:aws:kms:${region}:${account}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;

/** The team's existing cache, its security group and its functions' user. */
function existingCache(stack: Stack, encryptionKey?: kms.IKey): EchoMqCache {
  return EchoMqCache.existing({
    endpoint: 'clustercfg.jobs.abc123.use1.cache.amazonaws.com:6379',
    securityGroup: ec2.SecurityGroup.fromSecurityGroupId(
      stack,
      'CacheSecurityGroup',
      'sg-0ccccccccccccccc0',
    ),
    secret: secretsmanager.Secret.fromSecretAttributes(stack, 'CacheUser', {
      secretCompleteArn: `arn:aws:secretsmanager:${region}:${account}:secret:jobs-cache-user-AbCdEf`,
      encryptionKey,
    }),
  });
}

const url = stackWithVpc('ExistingFunctionUrl');
new EchoMq(url.stack, 'EchoMq', {
  vpc: url.vpc,
  cache: existingCache(url.stack),
  http: { functionUrl: true },
  // Releases that keep the wire identity shift 10 % of calls for 5 minutes first.
  rollout: { preference: LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES },
});

// The team's REST API (deployed by the team) and the team's own queue, imported: its
// redelivery span is given, since synthesis cannot read an imported queue's. The team's key
// encrypts the queues, the cache user's secret and every log group.
const rest = stackWithVpc('TeamRestApi');
const teamKey = kms.Key.fromKeyArn(rest.stack, 'TeamKey', teamKeyArn);
new EchoMq(rest.stack, 'EchoMq', {
  vpc: rest.vpc,
  cache: existingCache(rest.stack, teamKey),
  http: {
    restApi: apigw.RestApi.fromRestApiAttributes(rest.stack, 'Api', {
      restApiId: 'a1b2c3d4e5',
      rootResourceId: 'r00tr3s0ur',
    }),
  },
  sqs: {
    queue: sqs.Queue.fromQueueAttributes(rest.stack, 'Jobs', {
      queueArn: `arn:aws:sqs:${region}:${account}:jobs`,
      keyArn: teamKeyArn,
    }),
    deadLetterQueue: sqs.Queue.fromQueueAttributes(rest.stack, 'JobsDlq', {
      queueArn: `arn:aws:sqs:${region}:${account}:jobs-dlq`,
      keyArn: teamKeyArn,
    }),
    redelivery: {
      visibilityTimeout: Duration.minutes(5),
      maxReceiveCount: 5,
      retentionPeriod: Duration.minutes(50),
    },
  },
  options: { logGroupEncryptionKey: teamKey },
});

// The team's HTTP API, whose routes default to its JWT authorizer: EchoMq's routes keep it.
const jwt = stackWithVpc('TeamJwtHttpApi');
const api = new apigwv2.HttpApi(jwt.stack, 'Api', {
  // The team's stages (their access logs and throttling) are its own, deployed elsewhere.
  createDefaultStage: false,
  defaultAuthorizer: new HttpJwtAuthorizer('Jwt', 'https://issuer.example.com', {
    jwtAudience: ['jobs'],
  }),
});
new EchoMq(jwt.stack, 'EchoMq', {
  vpc: jwt.vpc,
  cache: existingCache(jwt.stack),
  http: { api },
  sqs: false,
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
app.synth();
