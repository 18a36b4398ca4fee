/**
 * EchoMq (SPEC §12): the two faces of echomq-lambda, their cache and the fence installer, in
 * any stack. It brings its own API, queues and cache where it is given none, and wires the
 * user's where it is: a VPC (required), an HTTP API, a REST API resource or a Function URL, an
 * SQS queue and DLQ, and any of four caches. Everything it is told is checked before anything
 * is built, the functions' environments by the runtime's own loadConfig.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { SettingValues } from '../src/settings-table.js';
import { EchoMqAlarms } from './alarms.js';
import type { CacheTarget } from './cache/cache.js';
import { moduleOf } from './cache/registry.js';
import { EchoMqDashboard } from './dashboard.js';
import type { EchoMqCache } from './echomq-cache.js';
import { FenceInstaller } from './fence-installer.js';
import { EchoMqFunctions } from './functions.js';
import { type EchoMqHttp, EchoMqHttpFace } from './http-face.js';
import { EchoMqNetwork } from './network.js';
import { EchoMqQueues } from './queues.js';
import { keptAs } from './removal.js';
import {
  checkedSettings,
  type EchoMqSettings,
  type HttpSettings,
  type ResolvedSettings,
  type RuntimeName,
  type SqsSettings,
} from './settings.js';

/** The SQS face on the user's queue (and DLQ: else one the construct makes). */
export interface EchoMqSqs {
  /** The source queue the SQS function polls. */
  readonly queue: sqs.IQueue;
  /** Where permanent failures go. Default: a DLQ the construct makes. */
  readonly deadLetterQueue?: sqs.IQueue;
}

/** What the functions, the new API and the new queues are like; every field has a default. */
export interface EchoMqOptions {
  /** The HTTP function and a new HTTP API: auth (IAM or JWT), throttling, timeout, memory. */
  readonly http?: HttpSettings;
  /** The SQS function, its event source and new queues: FIFO, batch size, concurrency, ... */
  readonly sqs?: SqsSettings;
  /** Lambda runtime of every function. Default `'nodejs22.x'`. */
  readonly runtime?: RuntimeName;
  /** Days every log group keeps events. Default `30`. */
  readonly logRetentionDays?: number;
  /** Keep log groups when the stack is deleted. Default `false`. */
  readonly keepLogsOnDelete?: boolean;
  /** SNS topic ARN the alarms notify. Default: none. */
  readonly alarmTopicArn?: string;
  /** Folder of the prebuilt bundles (`http/`, `sqs/`, `fence/`). Default: the package's. */
  readonly bundleDir?: string;
}

export interface EchoMqProps {
  /** The VPC the functions (and a cache the construct creates) run in. */
  readonly vpc: ec2.IVpc;
  /** The functions' subnets. Default: the VPC's private subnets. */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /** The functions' security groups, used as they are. Default: one the construct makes. */
  readonly securityGroups?: ec2.ISecurityGroup[];
  /** The cache: `EchoMqCache.elastiCache()`, `.serverless()`, `.existing({...})` or `.selfManaged()`. */
  readonly cache: EchoMqCache;
  /** Where the HTTP face is served; `false`: no HTTP face. Default: a new HTTP API, IAM auth. */
  readonly http?: EchoMqHttp | false;
  /** The SQS face's queues; `false`: no SQS face. Default: a new queue and DLQ. */
  readonly sqs?: EchoMqSqs | false;
  /** The EMQ_* tunables (src/settings-table.ts): defaultQueue, ackReplicas, ... */
  readonly settings?: SettingValues;
  /**
   * What becomes of the cache and queues the construct creates on delete or replacement.
   * Default: kept (a final snapshot of an ElastiCache replication group and of self-managed
   * data volumes; a Serverless cache and the queues retained).
   */
  readonly removalPolicy?: RemovalPolicy;
  /** X-Ray active tracing on the functions (X-Ray's default sampling). Default `true`. */
  readonly tracing?: boolean;
  /**
   * Make SQS and Secrets Manager interface endpoints in the functions' subnets. Default
   * `false`: the VPC reaches them its own way (NAT or its endpoints), and the functions'
   * group sends HTTPS out.
   */
  readonly interfaceEndpoints?: boolean;
  /** The functions, the new API and the new queues. Default: each field's default. */
  readonly options?: EchoMqOptions;
}

export class EchoMq extends Construct {
  readonly settings: ResolvedSettings;
  readonly network: EchoMqNetwork;
  readonly cache: CacheTarget;
  /** `host:port` of the cache endpoint (comma-separated seeds where there are several). */
  readonly cacheEndpoint: string;
  readonly functionsSecurityGroup: ec2.ISecurityGroup;
  readonly httpFunction: lambda.Function | undefined;
  readonly sqsFunction: lambda.Function | undefined;
  /** The HTTP face: its API (new or the user's), REST API or Function URL. */
  readonly http: EchoMqHttpFace | undefined;
  /** The queue whose messages become jobs, and its DLQ (new or the user's). */
  readonly queue: sqs.IQueue | undefined;
  readonly deadLetterQueue: sqs.IQueue | undefined;
  readonly fence: FenceInstaller;
  readonly alarms: EchoMqAlarms;
  readonly dashboard: EchoMqDashboard;

  constructor(scope: Construct, id: string, props: EchoMqProps) {
    super(scope, id);
    const settings = settingsOf(props);
    this.settings = settings;

    this.network = new EchoMqNetwork(this, 'Network', {
      vpc: props.vpc,
      functionSubnets: props.vpcSubnets ?? {},
      cacheSubnets: props.cache.vpcSubnets ?? props.vpcSubnets ?? {},
      securityGroups: props.securityGroups,
      interfaceEndpoints: settings.network.interfaceEndpoints,
    });
    const network = this.network;
    this.functionsSecurityGroup = network.functionsSecurityGroup;
    this.cache = moduleOf(settings.cache).create(this, 'Cache', settings.cache, {
      network,
      wire: settings.emq.wire,
      removalPolicy: props.removalPolicy,
    });
    this.cache.allowConnectionsFrom(network.functionsSecurityGroup);
    this.cacheEndpoint = this.cache.endpoint;

    const queues =
      props.sqs === false
        ? undefined
        : new EchoMqQueues(this, 'Queues', {
            settings,
            removalPolicy: keptAs(props.removalPolicy, RemovalPolicy.RETAIN),
            source: props.sqs?.queue,
            deadLetters: props.sqs?.deadLetterQueue,
          });
    this.queue = queues?.source;
    this.deadLetterQueue = queues?.deadLetters;
    const functions = new EchoMqFunctions(this, 'Functions', {
      settings,
      network,
      cache: this.cache,
      http: props.http !== false,
      queues,
    });
    this.httpFunction = functions.http;
    this.sqsFunction = functions.sqs;
    this.http =
      functions.http === undefined || props.http === false
        ? undefined
        : new EchoMqHttpFace(this, 'Http', {
            settings,
            handler: functions.http,
            on: props.http,
          });
    this.fence = new FenceInstaller(this, 'Fence', { settings, network, cache: this.cache });
    // Records taken before the fence exists would fail as retryable and burn their receives.
    functions.sqsEventSource?.node.addDependency(this.fence);

    this.alarms = new EchoMqAlarms(this, 'Alarms', {
      functions: Object.fromEntries(
        Object.entries({ Http: functions.http, Sqs: functions.sqs }).filter(
          (entry): entry is [string, lambda.Function] => entry[1] !== undefined,
        ),
      ),
      deadLetters: this.deadLetterQueue,
      apiServerErrors: this.http?.serverErrors,
      cache: this.cache.metrics,
      topicArn: settings.alarmTopicArn,
    });
    this.dashboard = new EchoMqDashboard(this, 'Dashboard', {
      deadLetters: this.deadLetterQueue,
      cache: this.cache.metrics,
    });
  }

  /**
   * Lets `grantee` enqueue: invoke every route of the HTTP face (execute-api:Invoke, or
   * lambda:InvokeFunctionUrl on a Function URL) and send to the SQS face's queue.
   */
  grantEnqueue(grantee: iam.IGrantable): void {
    this.http?.grantInvoke(grantee);
    this.queue?.grantSendMessages(grantee);
  }
}

/** The props as settings, resolved and checked with the bundles; throws every problem at once. */
function settingsOf(props: EchoMqProps): ResolvedSettings {
  const options = props.options ?? {};
  const input: EchoMqSettings = {
    cache: props.cache.settings,
    emq: props.settings,
    http: options.http,
    sqs: options.sqs,
    network: { interfaceEndpoints: props.interfaceEndpoints ?? false },
    runtime: options.runtime,
    tracing: props.tracing,
    logRetentionDays: options.logRetentionDays,
    keepLogsOnDelete: options.keepLogsOnDelete,
    alarmTopicArn: options.alarmTopicArn,
    bundleDir: options.bundleDir,
  };
  const on = props.http;
  const jwtElsewhere =
    options.http?.auth?.kind === 'jwt' && on !== undefined && on !== false && !('api' in on);
  return checkedSettings(
    input,
    jwtElsewhere ? ['a JWT authorizer applies to an HTTP API only (a new one, or http.api).'] : [],
  );
}
