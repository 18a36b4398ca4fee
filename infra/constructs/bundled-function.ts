/**
 * One Lambda function from a prebuilt bundle: nodejs22.x on arm64, inside the VPC with the
 * functions' security group, its own log group with retention, and the cache wiring.
 */
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { CacheTarget } from '../cache/cache.js';
import { BUNDLE_HANDLER, type BundleName, bundlePath } from '../deployment/bundles.js';
import {
  InvalidDeploymentError,
  type ResolvedDeployment,
  type RuntimeName,
} from '../deployment/deployment.js';
import { environmentProblems } from '../deployment/environment.js';
import type { EchoMqFunctionProps } from './echomq-props.js';
import type { EchoMqNetwork } from './network.js';

export interface BundledFunctionProps {
  readonly bundle: BundleName;
  readonly description: string;
  readonly timeoutSeconds: number;
  readonly memoryMiB: number;
  /** EMQ_* variables beyond the cache's connection variables. */
  readonly environment: Readonly<Record<string, string>>;
  readonly deployment: ResolvedDeployment;
  readonly network: EchoMqNetwork;
  readonly cache: CacheTarget;
  /**
   * Whose cache credentials the function reads: the functions' user (IAM tokens where the cache has
   * `cacheAuth=iam`), or the installer's (cache.installer): its own user where it has one, and only
   * those credentials; else the functions' (an existing cache given no installer, where it only
   * verifies).
   * @default `'functions'`
   */
  readonly credentials?: 'functions' | 'installer';
  /**
   * Merged over the defaults below (`environment` key by key).
   * @default none
   */
  readonly overrides?: EchoMqFunctionProps | undefined;
}

/** The Lambda runtimes a deployment may choose (deployment.runtime); the bundles target Node 22. */
export const RUNTIMES: Readonly<Record<RuntimeName, lambda.Runtime>> = {
  'nodejs22.x': lambda.Runtime.NODEJS_22_X,
  'nodejs24.x': lambda.Runtime.NODEJS_24_X,
};

export class BundledFunction extends Construct {
  readonly function: lambda.Function;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: BundledFunctionProps) {
    super(scope, id);
    const { deployment, network, cache } = props;
    const installer = props.credentials === 'installer';
    const own = installer ? cache.installer.environment : undefined;
    const iam = own === undefined ? cache.iamAuth : undefined;
    // The installer's own credentials replace the functions' secret, never sit beside it.
    const { EMQ_SECRET_ARN: functionsSecret, ...connection } = cache.connectionEnvironment;
    const { environment: extra, ...overrides } = props.overrides ?? {};
    const environment = {
      ...connection,
      ...(own ?? {
        ...(functionsSecret === undefined ? {} : { EMQ_SECRET_ARN: functionsSecret }),
        ...iam?.environment,
      }),
      ...props.environment,
      ...extra,
    };
    // The runtime's own loadConfig judges what the function will read at cold start.
    const refused = environmentProblems(environment, Stack.of(this).region);
    if (refused.length > 0) {
      throw new InvalidDeploymentError(
        refused.map((problem) => `${props.bundle} function: ${problem}`),
      );
    }
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: deployment.logRetentionDays,
      removalPolicy: deployment.keepLogsOnDelete ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.function = new lambda.Function(this, 'Function', {
      description: props.description,
      code: lambda.Code.fromAsset(bundlePath(deployment.bundleDir, props.bundle)),
      handler: BUNDLE_HANDLER,
      runtime: RUNTIMES[deployment.runtime],
      architecture: lambda.Architecture.ARM_64,
      timeout: Duration.seconds(props.timeoutSeconds),
      memorySize: props.memoryMiB,
      environment,
      logGroup: this.logGroup,
      vpc: network.vpc,
      vpcSubnets: network.functionSubnets,
      securityGroups: network.functionsSecurityGroups,
      // X-Ray's default sampling: the first request each second and 5 % of the rest.
      tracing: deployment.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      ...overrides,
    });
    // Each role reads only its own secret: the installer never the functions', nor they its.
    // With IAM the functions' role may connect to the cache as its user, and reads no secret.
    if (installer) cache.installer.grant(this.function);
    else if (iam !== undefined) iam.grantConnect(this.function);
    else cache.grantCredentials(this.function);

    const runtimeReason = `The bundles target Node 22 (esbuild target node22; the handlers run on Node 22 and 24); ${deployment.runtime} is a supported Lambda runtime the deployment chose.`;
    Validations.of(this.function).acknowledge({ id: 'AwsSolutions-L1', reason: runtimeReason });
    Validations.of(this.function).acknowledge({
      id: 'Serverless-LambdaLatestVersion',
      reason: runtimeReason,
    });
    Validations.of(this.function).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'Nothing invokes this function asynchronously: API Gateway and Function URLs wait for its answer, the SQS event source polls and leaves failed records to the queue (whose redrive policy moves them to the DLQ, where the function also sends what it refuses), and the custom resource framework waits for the installer. An asynchronous DLQ would never receive anything.',
    });
    if (deployment.tracing) {
      Validations.of(this.function).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords take no resource-level scope (the CDK grants them on *).',
      });
    }
    for (const policy of ['AWSLambdaBasicExecutionRole', 'AWSLambdaVPCAccessExecutionRole']) {
      Validations.of(this.function).acknowledge({
        id: `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/${policy}]`,
        reason: `${policy} is the AWS-maintained minimum for a function that writes logs${policy.includes('VPC') ? ' and attaches to a VPC (network interface actions have no resource-level scope)' : ''}.`,
      });
    }
  }
}
