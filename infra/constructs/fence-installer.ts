/**
 * Installs the wire identity (docs/wire.md, "The fence") on every primary at deploy: a custom
 * resource whose onEvent function (functions/fence) calls the same install the CLI uses, as the
 * cache's installer user; where the cache gives it none (an existing cache without `installer`), it
 * connects as the functions' user and only verifies (docs/deploy.md, "Into an existing account").
 * It runs again whenever the wire identity, the cache endpoint, the mode or the installer's bundle
 * changes (a package upgrade that brings a new library is a deploy that installs it); deleting the
 * stack leaves the fence alone.
 */
import { type CfnElement, CustomResource, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import type { CacheTarget } from '../cache/cache.js';
import { bundleDigest } from '../deployment/bundles.js';
import type { ResolvedDeployment } from '../deployment/deployment.js';
import { emqEnvironment } from '../deployment/environment.js';
import { BundledFunction } from './bundled-function.js';
import type { EchoMqNetwork } from './network.js';

export interface FenceInstallerProps {
  readonly deployment: ResolvedDeployment;
  readonly network: EchoMqNetwork;
  readonly cache: CacheTarget;
  /** How releases reach the faces' alias: a gradual one is refused across identities. */
  readonly rollout: 'gradual' | 'all-at-once';
}

/** The CloudFormation type of the fence resource. */
export const FENCE_RESOURCE_TYPE = 'Custom::EchoMqFence';

export class FenceInstaller extends Construct {
  readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: FenceInstallerProps) {
    super(scope, id);
    const { deployment, network, cache } = props;
    const onEvent = new BundledFunction(this, 'OnEvent', {
      deployment,
      network,
      cache,
      bundle: 'fence',
      credentials: 'installer',
      description: 'echomq-lambda: installs the wire identity on every Valkey primary at deploy',
      // A fresh cluster may need a while before every primary answers; the handler retries.
      timeoutSeconds: 300,
      memoryMiB: 256,
      environment: emqEnvironment(deployment.settings, 'fence'),
    });

    const provider = new Provider(this, 'Provider', {
      onEventHandler: onEvent.function,
      logGroup: new logs.LogGroup(this, 'ProviderLogs', {
        retention: deployment.logRetentionDays,
        removalPolicy: deployment.keepLogsOnDelete ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      }),
    });
    this.resource = new CustomResource(this, 'Resource', {
      serviceToken: provider.serviceToken,
      resourceType: FENCE_RESOURCE_TYPE,
      // Any change here is an Update, and an Update installs again.
      properties: {
        Wire: deployment.settings.wire,
        Endpoint: cache.endpoint,
        // The family, under the property name deployed stacks already hold (as EMQ_EXECUTOR is
        // the variable's): a new name would be an Update of every stack for nothing.
        Executor: cache.connectionEnvironment.EMQ_EXECUTOR,
        // verify: the installer has only the functions' credentials (functions/fence/on-event.ts).
        Mode: cache.installer.mode,
        // CloudFormation calls Update only when a property changes: without this, upgrading
        // the package to a new library would leave the old one loaded, and the new functions
        // refusing (EMQWIRE) until someone ran `emq install`.
        Installer: bundleDigest(deployment.bundleDir, 'fence'),
        // gradual: an Update that changes the live identity fails (functions/fence/on-event.ts).
        Rollout: props.rollout,
      },
    });
    // The install connects from inside the VPC: the cache, its security group rules and the
    // Secrets Manager endpoint must all exist first.
    this.resource.node.addDependency(cache.ready, network);

    const framework = provider.node.findChild('framework-onEvent');
    // Both packs' runtime rules: aws-cdk-lib releases move the framework's runtime on their
    // own schedule, and a newer nag than the framework's runtime flags it in either pack.
    for (const id of ['AwsSolutions-L1', 'Serverless-LambdaLatestVersion']) {
      Validations.of(framework).acknowledge({
        id,
        reason:
          'The CDK custom resource framework chooses its own runtime for its dispatcher function; it runs no project code.',
      });
    }
    for (const id of [
      'Serverless-LambdaDLQ',
      'Serverless-LambdaDefaultMemorySize',
      'Serverless-LambdaTracing',
    ]) {
      Validations.of(framework).acknowledge({
        id,
        reason:
          "The CDK custom resource framework's dispatcher: CloudFormation invokes it and waits; it runs no project code and its size, tracing and failure handling are the framework's.",
      });
    }
    Validations.of(framework).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'The AWS-maintained minimum for the framework dispatcher to write its logs.',
    });
    const onEventId = Stack.of(this).getLogicalId(onEvent.function.node.defaultChild as CfnElement);
    Validations.of(framework).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${onEventId}.Arn>:*]`,
      reason:
        'The framework may invoke any version of the one onEvent function it dispatches to; the wildcard covers versions of that function only.',
    });
  }
}
