/**
 * The password rotation of a cache the construct creates (ElastiCache node-based or
 * Serverless, MemoryDB, a self-managed cluster): one function of this package's
 * (functions/rotate) that follows Secrets Manager's four steps and gives each user its current
 * and its new password, and one Secrets Manager rotation schedule per user secret, every
 * `passwordRotationDays` (default 30). For a service the function calls only AWS APIs, so it
 * runs outside the VPC; for a self-managed cluster it changes the users on the nodes, so it
 * runs in the VPC with the functions' security groups (which the nodes admit) and reads the
 * admin user's secret. The schedules wait for the cache, whose users they change, and never
 * rotate at deploy: the first rotation comes on the schedule. With `passwordRotationDays: 0`
 * there is no function, and the secrets say why.
 */
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { CacheTarget } from '../cache/cache.js';
import type { CacheRotation } from '../cache/rotation.js';
import { grantSecretRead } from '../cache/secret-read.js';
import { BUNDLE_HANDLER, bundlePath } from '../deployment/bundles.js';
import type { ResolvedDeployment } from '../deployment/deployment.js';
import { RUNTIMES } from './bundled-function.js';
import type { EchoMqNetwork } from './network.js';

export interface CredentialRotationProps {
  readonly deployment: ResolvedDeployment;
  /** Where a rotation that reaches the nodes runs: the functions' subnets and groups. */
  readonly network: Pick<EchoMqNetwork, 'vpc' | 'functionSubnets' | 'functionsSecurityGroups'>;
  readonly cache: CacheTarget;
}

/** The service actions that change and read a user, on that user only. */
const USER_ACTIONS = {
  elasticache: ['elasticache:ModifyUser', 'elasticache:DescribeUsers'],
  memorydb: ['memorydb:UpdateUser', 'memorydb:DescribeUsers'],
} as const;

export class CredentialRotation extends Construct {
  /** The rotation function; none where the cache has no users to rotate or rotation is off. */
  readonly function: lambda.Function | undefined;

  constructor(scope: Construct, id: string, props: CredentialRotationProps) {
    super(scope, id);
    const { deployment, network, cache } = props;
    const rotation = cache.rotation;
    if (rotation === undefined || rotation.users.length === 0) return;
    const days = deployment.passwordRotationDays;
    if (days === 0) {
      for (const user of rotation.users) {
        Validations.of(user.secret).acknowledge({
          id: 'AwsSolutions-SMG4',
          reason:
            "The deployment turned rotation off (passwordRotationDays: 0): the team rotates this user's password itself (docs/operations.md, Rotating credentials).",
        });
      }
      return;
    }
    const logGroup = new logs.LogGroup(this, 'Logs', {
      retention: deployment.logRetentionDays,
      removalPolicy: deployment.keepLogsOnDelete ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    const rotate = new lambda.Function(this, 'Function', {
      description: 'echomq-lambda: rotates the passwords of the cache users (Secrets Manager)',
      code: lambda.Code.fromAsset(bundlePath(deployment.bundleDir, 'rotate')),
      handler: BUNDLE_HANDLER,
      runtime: RUNTIMES[deployment.runtime],
      architecture: lambda.Architecture.ARM_64,
      // testSecret waits up to 4 minutes for the service to apply the new passwords.
      timeout: Duration.minutes(5),
      memorySize: 256,
      environment: {
        ...(rotation.service === 'nodes' ? nodesEnvironment(cache, rotation.admin) : {}),
        ROTATED_SERVICE: rotation.service,
        ROTATED_USERS: Stack.of(this).toJsonString(
          rotation.users.map((user) => ({ secretArn: user.secret.secretArn, userId: user.userId })),
        ),
      },
      logGroup,
      tracing: deployment.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      ...(rotation.service === 'nodes'
        ? {
            vpc: network.vpc,
            vpcSubnets: network.functionSubnets,
            securityGroups: network.functionsSecurityGroups,
          }
        : {}),
    });
    this.function = rotate;
    grantChanges(rotate, rotation);
    rotation.users.forEach((user, index) => {
      const schedule = new secretsmanager.RotationSchedule(this, `Schedule${index}`, {
        secret: user.secret,
        rotationLambda: rotate,
        automaticallyAfter: Duration.days(days),
        rotateImmediatelyOnUpdate: false,
      });
      // The first rotation changes a user that must exist, in a cache that uses it.
      schedule.node.addDependency(cache.ready);
    });
    acknowledge(rotate, deployment, rotation);
  }
}

/**
 * The connection settings the functions have (seeds, cluster mode, TLS CA), with the admin's
 * secret in place of the functions': the rotation function connects as the admin.
 */
function nodesEnvironment(
  cache: CacheTarget,
  admin: secretsmanager.ISecret,
): Record<string, string> {
  return { ...cache.connectionEnvironment, EMQ_SECRET_ARN: admin.secretArn };
}

/** What lets the function change the users: the service's actions on them, or the admin's secret. */
function grantChanges(rotate: lambda.Function, rotation: CacheRotation): void {
  if (rotation.service === 'nodes') {
    grantSecretRead(rotation.admin, rotate);
    return;
  }
  rotate.addToRolePolicy(
    new iam.PolicyStatement({
      actions: [...USER_ACTIONS[rotation.service]],
      resources: rotation.users.map((user) => user.userArn),
    }),
  );
}

function acknowledge(
  rotate: lambda.Function,
  deployment: ResolvedDeployment,
  rotation: CacheRotation,
): void {
  const runtimeReason = `The bundles target Node 22 (esbuild target node22; the handlers run on Node 22 and 24); ${deployment.runtime} is a supported Lambda runtime the deployment chose.`;
  Validations.of(rotate).acknowledge({ id: 'AwsSolutions-L1', reason: runtimeReason });
  Validations.of(rotate).acknowledge({
    id: 'Serverless-LambdaLatestVersion',
    reason: runtimeReason,
  });
  Validations.of(rotate).acknowledge({
    id: 'Serverless-LambdaDLQ',
    reason:
      'Secrets Manager invokes the rotation function and records a failed step itself, then tries the rotation again; an asynchronous DLQ would never receive anything.',
  });
  Validations.of(rotate).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'secretsmanager:GetRandomPassword (which aws-cdk-lib grants every rotation function) and, with active tracing, xray:PutTraceSegments and xray:PutTelemetryRecords take no resource-level scope.',
  });
  const policies = [
    'AWSLambdaBasicExecutionRole',
    ...(rotation.service === 'nodes' ? ['AWSLambdaVPCAccessExecutionRole'] : []),
  ];
  for (const policy of policies) {
    Validations.of(rotate).acknowledge({
      id: `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/${policy}]`,
      reason: `${policy} is the AWS-maintained minimum for a function that writes logs${policy.includes('VPC') ? ' and attaches to a VPC (network interface actions have no resource-level scope)' : ''}.`,
    });
  }
}
