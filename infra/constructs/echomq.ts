/**
 * EchoMq (docs/deploy.md): the two faces of echomq-lambda, their cache and the fence installer, in
 * any stack. It brings its own API, queues and cache where it is given none, and wires the
 * user's where it is: a VPC (required), an HTTP API, a REST API resource or a Function URL, an
 * SQS queue and DLQ, and any of four caches. Everything it is told is checked before anything
 * is built, the functions' environments by the runtime's own loadConfig.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as codedeploy from 'aws-cdk-lib/aws-codedeploy';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { CacheTarget } from '../cache/cache.js';
import { moduleOf } from '../cache/modules.js';
import {
  checkedDeployment,
  type EchoMqDeployment,
  type Redelivery,
  type ResolvedDeployment,
} from '../deployment/deployment.js';
import { grantSendTo } from '../faces/queue-send.js';
import { type FaceChoice, type FaceWiring, faceNamed } from '../faces/registry.js';
import { keptAs } from '../shared/removal.js';
import { EchoMqAlarms } from './alarms.js';
import { CredentialRotation } from './credential-rotation.js';
import { EchoMqDashboard } from './dashboard.js';
import type { EchoMqProps } from './echomq-props.js';
import { deploymentNameOf, type Face, FaceMetrics } from './face-metrics.js';
import { FenceInstaller } from './fence-installer.js';
import { EchoMqFunctions } from './functions.js';
import { EchoMqHttpFace } from './http-face.js';
import { keepWhatKeptResourcesNeed } from './kept-references.js';
import { encryptLogGroups } from './log-encryption.js';
import { EchoMqNetwork } from './network.js';
import { overridesOf } from './override-props.js';
import { propNamed } from './prop-names.js';
import { redeliveryOf } from './queue-redelivery.js';
import { EchoMqQueues } from './queues.js';
import { EchoMqRolloutGroups } from './rollout.js';

export type { EchoMqFunctionProps, EchoMqOptions, EchoMqProps, EchoMqSqs } from './echomq-props.js';

export class EchoMq extends Construct {
  readonly deployment: ResolvedDeployment;
  readonly network: EchoMqNetwork;
  readonly cache: CacheTarget;
  /** `host:port` of the cache endpoint (comma-separated seeds where there are several). */
  readonly cacheEndpoint: string;
  readonly functionsSecurityGroup: ec2.ISecurityGroup;
  readonly httpFunction: lambda.Function | undefined;
  readonly sqsFunction: lambda.Function | undefined;
  /** The HTTP function's alias `live`, which the routes invoke. */
  readonly httpAlias: lambda.Alias | undefined;
  /** The SQS function's alias `live`, which the event source invokes. */
  readonly sqsAlias: lambda.Alias | undefined;
  /** CodeDeploy's groups that shift each alias, where `rollout` asks for a gradual one. */
  readonly rolloutGroups: readonly codedeploy.LambdaDeploymentGroup[];
  /** The HTTP face: its API (new or the user's), REST API or Function URL. */
  readonly http: EchoMqHttpFace | undefined;
  /** The queue whose messages become jobs, and its DLQ (new or the user's). */
  readonly queue: sqs.IQueue | undefined;
  readonly deadLetterQueue: sqs.IQueue | undefined;
  readonly fence: FenceInstaller;
  /** The cache users' password rotation, where the construct creates the cache. */
  readonly rotation: CredentialRotation;
  /**
   * The alarms a team pages on: the source queue's oldest message, the DLQ's depth, 5xx on the
   * HTTP face, each function's errors and throttles, and the cache's where the stack owns it.
   */
  readonly alarms: readonly cloudwatch.IAlarm[];
  readonly dashboard: EchoMqDashboard;
  /** The name every metric of this deployment carries in its `Deployment` dimension. */
  readonly deploymentName: string;
  private readonly faces: FaceMetrics;

  constructor(scope: Construct, id: string, props: EchoMqProps) {
    super(scope, id);
    const deployment = deploymentOf(props);
    this.deployment = deployment;
    this.deploymentName = deploymentNameOf(this);
    this.faces = new FaceMetrics(this.deploymentName);

    this.network = new EchoMqNetwork(this, 'Network', {
      vpc: props.vpc,
      functionSubnets: props.vpcSubnets ?? {},
      cacheSubnets: props.cache.vpcSubnets ?? props.vpcSubnets ?? {},
      securityGroups: props.securityGroups,
      interfaceEndpoints: deployment.network.interfaceEndpoints,
    });
    const network = this.network;
    this.functionsSecurityGroup = network.functionsSecurityGroup;
    this.cache = moduleOf(deployment.cache).create(this, 'Cache', deployment.cache, {
      network,
      wire: deployment.settings.wire,
      removalPolicy: props.removalPolicy,
    });
    this.cache.allowConnectionsFrom(network.functionsSecurityGroup);
    this.cacheEndpoint = this.cache.endpoint;

    const queues =
      props.sqs === false
        ? undefined
        : new EchoMqQueues(this, 'Queues', {
            deployment,
            removalPolicy: keptAs(props.removalPolicy, RemovalPolicy.RETAIN),
            source: props.sqs?.queue,
            deadLetters: props.sqs?.deadLetterQueue,
            queueProps: props.queueProps,
            deadLetterQueueProps: props.deadLetterQueueProps,
          });
    this.queue = queues?.source;
    this.deadLetterQueue = queues?.deadLetters;
    const faces: FaceChoice = { http: props.http !== false, sqs: queues !== undefined };
    const functions = new EchoMqFunctions(this, 'Functions', {
      deployment,
      network,
      cache: this.cache,
      faces,
      wiring: { deployment, queues },
      functionProps: props.functionProps,
      deploymentName: this.deploymentName,
    });
    const { http, sqs } = functions.faces;
    this.httpFunction = http?.fn;
    this.sqsFunction = sqs?.fn;
    this.httpAlias = http?.live;
    this.sqsAlias = sqs?.live;
    this.http =
      http === undefined || props.http === false
        ? undefined
        : new EchoMqHttpFace(this, 'Http', {
            deployment,
            handler: http.live,
            on: props.http,
          });
    this.fence = new FenceInstaller(this, 'Fence', {
      deployment,
      network,
      cache: this.cache,
      rollout: props.rollout === undefined ? 'all-at-once' : 'gradual',
    });
    this.rotation = new CredentialRotation(this, 'Rotation', {
      deployment,
      network,
      cache: this.cache,
    });
    // Records taken before the fence exists would fail as retryable and burn their receives.
    // A release reaches the alias only once the installer accepted it (a gradual rollout
    // across identities is refused there, before any traffic shifts).
    for (const face of functions.made) {
      face.eventSource?.node.addDependency(this.fence);
      face.live.node.addDependency(this.fence);
    }

    const wiring: FaceWiring = {
      deployment,
      queues,
      serverErrors:
        this.http === undefined
          ? undefined
          : (this.http.serverErrors ?? this.metricServerErrors({ face: 'http' })),
    };
    this.alarms = new EchoMqAlarms(this, 'Alarms', {
      functions: functions.made,
      faces: wiring,
      cache: this.cache.metrics,
      topicArn: deployment.alarmTopicArn,
    }).alarms;
    this.rolloutGroups =
      props.rollout === undefined
        ? []
        : new EchoMqRolloutGroups(this, 'Rollout', {
            rollout: props.rollout,
            aliases: Object.fromEntries(functions.made.map((face) => [face.row.id, face.live])),
            alarms: this.alarms,
          }).groups;
    this.dashboard = new EchoMqDashboard(this, 'Dashboard', {
      metrics: this.faces,
      faces: faces,
      wiring,
      cache: this.cache.metrics,
    });
    encryptLogGroups(this, props.options?.logGroupEncryptionKey);
    keepWhatKeptResourcesNeed(this);
  }

  /**
   * Lets `grantee` enqueue: send to the SQS face's queue, and invoke every route of the HTTP
   * face (execute-api:Invoke, or lambda:InvokeFunctionUrl on a Function URL) where the routes
   * are authorized by IAM. Where an authorizer of the team's decides (JWT, Lambda, Cognito: the
   * API's default authorizer or `http.authorizer`), IAM grants nothing there: give the caller
   * what that authorizer accepts instead.
   */
  grantEnqueue(grantee: iam.IGrantable): void {
    this.http?.grantInvoke(grantee);
    if (this.queue !== undefined) grantSendTo(this.queue, grantee);
  }

  /** Requests the HTTP face answered (records for the SQS face), of one outcome where given. Default: Sum over 5 minutes. */
  metricRequests(
    options: cloudwatch.MetricOptions & { readonly face?: Face; readonly outcome?: string } = {},
  ): cloudwatch.Metric {
    const { face = 'http', ...rest } = options;
    return this.faces.metric(face, faceNamed(face).requests, rest);
  }

  /** Jobs a face put into the keyspace (a batch's enqueued items counted one by one). Default: the HTTP face's Sum over 5 minutes. */
  metricAdmittedJobs(
    options: cloudwatch.MetricOptions & { readonly face?: Face } = {},
  ): cloudwatch.Metric {
    const { face = 'http', ...rest } = options;
    return this.faces.metric(face, 'AdmittedJobs', rest);
  }

  /** The HTTP face's time per request in ms, as the function measured it. Default: p99 over 5 minutes. */
  metricLatency(options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.faces.metric('http', 'Latency', { statistic: 'p99', ...options });
  }

  /** Records of the SQS face's batches that SQS delivers again. Default: Sum over 5 minutes. */
  metricBatchItemFailures(options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.faces.metric('sqs', 'BatchItemFailures', options);
  }

  /** The HTTP face's 5xx answers, counted by its function on every front. Default: Sum over 5 minutes. */
  metricServerErrors(
    options: cloudwatch.MetricOptions & { readonly face?: 'http' } = {},
  ): cloudwatch.Metric {
    const { face = 'http', ...rest } = options;
    return this.faces.metric(face, 'ServerErrors', rest);
  }
}

/** The props as a deployment, resolved and checked with the bundles; throws every problem at once. */
function deploymentOf(props: EchoMqProps): ResolvedDeployment {
  const options = props.options ?? {};
  const http = props.http === false ? undefined : props.http;
  const sqsFace = props.sqs === false ? undefined : props.sqs;
  const problems: string[] = [];
  let redelivery: Redelivery | undefined;
  if (sqsFace?.queue !== undefined) {
    const read = redeliveryOf(sqsFace.queue, sqsFace.redelivery);
    if (typeof read === 'string') problems.push(read);
    else redelivery = read;
    if (props.queueProps !== undefined) {
      problems.push(
        'queueProps shapes the queue the construct makes: with sqs.queue, shape yours.',
      );
    }
  } else if (sqsFace?.redelivery !== undefined) {
    problems.push('sqs.redelivery describes an imported sqs.queue: give the queue too.');
  }
  if (sqsFace?.deadLetterQueue !== undefined && props.deadLetterQueueProps !== undefined) {
    problems.push(
      'deadLetterQueueProps shapes the DLQ the construct makes: with sqs.deadLetterQueue, shape yours.',
    );
  }
  const onTeamApi = http !== undefined && 'api' in http && http.api !== undefined;
  const elsewhere =
    http !== undefined &&
    (('restApi' in http && http.restApi !== undefined) ||
      ('functionUrl' in http && http.functionUrl === true));
  if (http?.auth?.kind === 'jwt' && elsewhere) {
    problems.push('a JWT authorizer applies to an HTTP API only (a new one, or http.api).');
  }
  if (onTeamApi && http.auth !== undefined && http.authorizer !== undefined) {
    problems.push('http.auth and http.authorizer are exclusive: give the routes one authorizer.');
  }
  if (
    onTeamApi &&
    !(http.api instanceof apigwv2.HttpApi) &&
    http.auth === undefined &&
    http.authorizer === undefined
  ) {
    // Its routes would silently take IAM where the team's default authorizer was meant.
    problems.push(
      "http.api is imported (HttpApi.fromHttpApiAttributes): synthesis cannot read its default authorizer, so name the routes' authorizer: http.authorizer, such as new HttpIamAuthorizer() for IAM (SigV4) or the API's own authorizer (HttpJwtAuthorizer, HttpLambdaAuthorizer).",
    );
  }
  const input: EchoMqDeployment = {
    cache: props.cache.spec,
    settings: props.settings,
    http,
    sqs: sqsFace,
    faces: { http: props.http !== false, sqs: props.sqs !== false },
    overrides: overridesOf(props),
    ...(redelivery === undefined ? {} : { redelivery }),
    network: { interfaceEndpoints: props.interfaceEndpoints ?? false },
    runtime: options.runtime,
    tracing: props.tracing,
    logRetentionDays: options.logRetentionDays,
    keepLogsOnDelete: options.keepLogsOnDelete,
    passwordRotationDays: options.passwordRotationDays,
    alarmTopicArn: options.alarmTopicArn,
    bundleDir: options.bundleDir,
  };
  return checkedDeployment(input, problems, propNamed);
}
