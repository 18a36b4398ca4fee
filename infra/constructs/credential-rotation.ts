/**
 * The password rotation of a cache the construct creates (ElastiCache node-based or
 * Serverless, MemoryDB): one function of this package's (functions/rotate) that follows
 * Secrets Manager's four steps and gives each user its current and its new password, and one
 * Secrets Manager rotation schedule per user secret, every `passwordRotationDays` (default 30).
 * The function calls only AWS APIs, so it runs outside the VPC. The schedules wait for the
 * cache, whose users they change, and never rotate at deploy: the first rotation comes on the
 * schedule. With `passwordRotationDays: 0` there is no function, and the secrets say why.
 */
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { CacheTarget } from '../cache/cache.js';
import { BUNDLE_HANDLER, bundlePath } from '../deployment/bundles.js';
import type { ResolvedDeployment } from '../deployment/deployment.js';
import { RUNTIMES } from './bundled-function.js';

export interface CredentialRotationProps {
  readonly deployment: ResolvedDeployment;
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
    const { deployment, cache } = props;
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
        ROTATED_SERVICE: rotation.service,
        ROTATED_USERS: Stack.of(this).toJsonString(
          rotation.users.map((user) => ({ secretArn: user.secret.secretArn, userId: user.userId })),
        ),
      },
      logGroup,
      tracing: deployment.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
    });
    this.function = rotate;
    rotate.addToRolePolicy(
      new iam.PolicyStatement({
        actions: [...USER_ACTIONS[rotation.service]],
        resources: rotation.users.map((user) => user.userArn),
      }),
    );
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
    acknowledge(rotate, deployment);
  }
}

function acknowledge(rotate: lambda.Function, deployment: ResolvedDeployment): void {
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
  Validations.of(rotate).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason:
      'AWSLambdaBasicExecutionRole is the AWS-maintained minimum for a function that writes logs.',
  });
}
