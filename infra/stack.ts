/**
 * The echomq-lambda stack: network, cache, queues, the two faces, the HTTP API, the fence
 * installer, alarms and outputs. Settings are checked as a whole before anything is built.
 */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type { Construct } from 'constructs';
import { EchoMqAlarms } from './alarms.js';
import { EchoMqApi } from './api.js';
import { missingBundles } from './bundles.js';
import type { EchoMqCache } from './cache/cache.js';
import { createCache } from './cache/create.js';
import { EchoMqDashboard } from './dashboard.js';
import { FenceInstaller } from './fence-installer.js';
import { EchoMqFunctions } from './functions.js';
import { EchoMqNetwork } from './network.js';
import { EchoMqQueues } from './queues.js';
import {
  type EchoMqSettings,
  InvalidSettingsError,
  type ResolvedSettings,
  resolveSettings,
} from './settings.js';

export interface EchoMqStackProps extends StackProps {
  /** What this deployment chooses. Default: every field's documented default (ElastiCache, IAM). */
  readonly settings?: EchoMqSettings;
  /** A VPC to deploy into. Default: a new VPC without NAT (settings.network). */
  readonly vpc?: ec2.IVpc;
}

/** Resolves settings and checks them with the bundles; throws every problem at once. */
export function checkedSettings(input: EchoMqSettings = {}): ResolvedSettings {
  const { settings, problems } = resolveSettings(input);
  problems.push(...missingBundles(settings.bundleDir));
  if (problems.length > 0) throw new InvalidSettingsError(problems);
  return settings;
}

export class EchoMqStack extends Stack {
  readonly settings: ResolvedSettings;
  readonly network: EchoMqNetwork;
  readonly cache: EchoMqCache;
  readonly queues: EchoMqQueues;
  readonly functions: EchoMqFunctions;
  readonly api: EchoMqApi;
  readonly fence: FenceInstaller;
  readonly alarms: EchoMqAlarms;
  readonly dashboard: EchoMqDashboard;

  constructor(scope: Construct, id: string, props: EchoMqStackProps = {}) {
    super(scope, id, {
      description: 'echomq-lambda: API Gateway and SQS admission into EchoMQ queues on Valkey',
      ...props,
    });
    const settings = checkedSettings(props.settings);
    this.settings = settings;

    this.network = new EchoMqNetwork(this, 'Network', { settings, vpc: props.vpc });
    const network = this.network;
    this.cache = createCache(this, 'Cache', settings.cache, network);
    this.cache.allowConnectionsFrom(network.functionsSecurityGroup);
    this.queues = new EchoMqQueues(this, 'Queues', { settings });
    this.functions = new EchoMqFunctions(this, 'Functions', {
      settings,
      network,
      cache: this.cache,
      queues: this.queues,
    });
    this.api = new EchoMqApi(this, 'Http', { settings, handler: this.functions.http });
    this.fence = new FenceInstaller(this, 'Fence', { settings, network, cache: this.cache });
    // Records taken before the fence exists would fail as retryable and burn their receives.
    this.functions.sqsEventSource.node.addDependency(this.fence);
    this.alarms = new EchoMqAlarms(this, 'Alarms', {
      functions: { Http: this.functions.http, Sqs: this.functions.sqs },
      deadLetters: this.queues.deadLetters,
      stage: this.api.stage,
      cache: this.cache.metrics,
      topicArn: settings.alarmTopicArn,
    });

    this.dashboard = new EchoMqDashboard(this, 'Dashboard', {
      deadLetters: this.queues.deadLetters,
      cache: this.cache.metrics,
    });

    new CfnOutput(this, 'ApiUrl', {
      description: 'Base URL of the HTTP API (POST {url}queues/{queue}/jobs)',
      value: this.api.url,
    });
    new CfnOutput(this, 'QueueUrl', {
      description: 'SQS queue whose messages become jobs',
      value: this.queues.source.queueUrl,
    });
    new CfnOutput(this, 'DeadLetterQueueUrl', {
      description: 'SQS dead-letter queue of permanently failed records',
      value: this.queues.deadLetters.queueUrl,
    });
    new CfnOutput(this, 'CacheEndpoint', {
      description: `Valkey endpoint the functions use (${this.cache.kind})`,
      value: this.cache.endpoint,
    });
  }
}
