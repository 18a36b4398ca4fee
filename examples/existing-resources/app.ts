/**
 * A platform team's app: EchoMq composed with what the account already has, an existing VPC,
 * HTTP API, SQS queue and DLQ, and an ElastiCache for Valkey cluster, all imported by id. The
 * construct adds routes to the API, polls the queue, and opens the cache's security group to
 * the functions; it creates no API, queue or cache of its own. cdk-nag's AwsSolutions and
 * Serverless packs run at synthesis. Replace the ids with yours.
 */
import { App, CfnOutput, Duration, Stack, Validations } from 'aws-cdk-lib';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { EchoMq, EchoMqCache } from 'echomq-lambda/cdk';

const account = '123456789012';
const region = 'us-east-1';

const app = new App();
const stack = new Stack(app, 'JobsIngest', { env: { account, region } });

// Ids of the account's own resources (Vpc.fromLookup works too, with credentials at synth).
const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
  vpcId: 'vpc-0123456789abcdef0',
  availabilityZones: ['us-east-1a', 'us-east-1b'],
  privateSubnetIds: ['subnet-0aaaaaaaaaaaaaaa0', 'subnet-0bbbbbbbbbbbbbbb0'],
});
const api = apigwv2.HttpApi.fromHttpApiAttributes(stack, 'Api', { httpApiId: 'a1b2c3d4e5' });
const queue = sqs.Queue.fromQueueArn(stack, 'Jobs', `arn:aws:sqs:${region}:${account}:jobs`);
const deadLetterQueue = sqs.Queue.fromQueueArn(
  stack,
  'JobsDlq',
  `arn:aws:sqs:${region}:${account}:jobs-dlq`,
);
// The construct admits jobs once per id for EMQ_DEDUPE_TTL_MS (1 h by default): it checks at
// synth that a message of the queue cannot come back later than that. An imported queue's
// settings are not known at synth: state them.
const redelivery = { visibilityTimeout: Duration.minutes(3), maxReceiveCount: 5 };
const cacheSecurityGroup = ec2.SecurityGroup.fromSecurityGroupId(
  stack,
  'CacheSecurityGroup',
  'sg-0ccccccccccccccc0',
);
const secret = secretsmanager.Secret.fromSecretCompleteArn(
  stack,
  'CacheUser',
  `arn:aws:secretsmanager:${region}:${account}:secret:jobs-cache-user-AbCdEf`,
);
// A user with the installer's rules (docs/security.md): the deploy installs the wire identity
// and the library with it. Without it the deploy only verifies what `emq install` put there.
const installerSecret = secretsmanager.Secret.fromSecretCompleteArn(
  stack,
  'CacheInstaller',
  `arn:aws:secretsmanager:${region}:${account}:secret:jobs-cache-installer-GhIjKl`,
);

const echoMq = new EchoMq(stack, 'EchoMq', {
  vpc,
  cache: EchoMqCache.existing({
    endpoint: 'clustercfg.jobs.abc123.use1.cache.amazonaws.com:6379',
    securityGroup: cacheSecurityGroup,
    secret,
    installer: { secret: installerSecret },
  }),
  // An imported API's default authorizer is not known at synth: name the routes' authorizer.
  http: { api, authorizer: new HttpIamAuthorizer() },
  sqs: { queue, deadLetterQueue, redelivery },
  settings: { defaultQueue: 'orders' },
});

new CfnOutput(stack, 'FunctionsSecurityGroupId', {
  value: echoMq.functionsSecurityGroup.securityGroupId,
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
app.synth();
