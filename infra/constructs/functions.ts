/**
 * The two faces: the HTTP function behind the API and the SQS function fed by the source
 * queue (batches of 10, partial batch responses, bounded concurrency). Either may be left out.
 * Each is published as a version behind the alias `live`, which the routes and the event
 * source invoke: a release moves the alias, at once or gradually (rollout.ts).
 */
import { Duration, Validations } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { SETTINGS } from '../../src/settings/settings-table.js';
import type { CacheTarget } from '../cache/cache.js';
import type { ResolvedDeployment } from '../deployment/deployment.js';
import { emqEnvironment } from '../deployment/environment.js';
import { BundledFunction } from './bundled-function.js';
import type { EchoMqFunctionProps } from './echomq-props.js';
import type { EchoMqNetwork } from './network.js';
import { grantSendTo } from './queue-send.js';
import type { EchoMqQueues } from './queues.js';

export interface EchoMqFunctionsProps {
  readonly deployment: ResolvedDeployment;
  readonly network: EchoMqNetwork;
  readonly cache: CacheTarget;
  /** Make the HTTP function. */
  readonly http: boolean;
  /** The SQS face's queues; undefined: no SQS function. */
  readonly queues: EchoMqQueues | undefined;
  /** Merged over both functions' defaults. */
  readonly functionProps?: EchoMqFunctionProps | undefined;
  /** The name their metrics carry (EMQ_DEPLOYMENT). */
  readonly deploymentName: string;
}

/** The alias every caller of a face invokes. */
export const LIVE_ALIAS = 'live';

export class EchoMqFunctions extends Construct {
  readonly http: lambda.Function | undefined;
  readonly sqs: lambda.Function | undefined;
  /** The HTTP function's alias `live`: what the routes invoke. */
  readonly httpLive: lambda.Alias | undefined;
  /** The SQS function's alias `live`: what the event source invokes. */
  readonly sqsLive: lambda.Alias | undefined;
  /** Polling starts when this exists; the construct makes it wait for the fence. */
  readonly sqsEventSource: lambda.EventSourceMapping | undefined;

  constructor(scope: Construct, id: string, props: EchoMqFunctionsProps) {
    super(scope, id);
    const { deployment, network, cache, queues } = props;
    const shared = { deployment, network, cache, overrides: props.functionProps };
    const named = { [SETTINGS.deployment.env]: props.deploymentName };

    this.http = props.http
      ? new BundledFunction(this, 'Http', {
          ...shared,
          bundle: 'http',
          description: 'echomq-lambda HTTP face: POST/PUT/GET/HEAD /queues/{queue}/jobs...',
          timeoutSeconds: deployment.http.timeoutSeconds,
          memoryMiB: deployment.http.memoryMiB,
          environment: { ...emqEnvironment(deployment.settings, 'http'), ...named },
        }).function
      : undefined;
    this.httpLive = this.http === undefined ? undefined : live(this, 'HttpLive', this.http);

    if (queues === undefined) return;
    const sqsFunction = new BundledFunction(this, 'Sqs', {
      ...shared,
      bundle: 'sqs',
      description: 'echomq-lambda SQS face: records become jobs',
      timeoutSeconds: deployment.sqs.timeoutSeconds,
      memoryMiB: deployment.sqs.memoryMiB,
      environment: {
        ...emqEnvironment(deployment.settings, 'sqs'),
        ...named,
        EMQ_DLQ_URL: queues.deadLetters.queueUrl,
      },
    }).function;
    this.sqs = sqsFunction;
    this.sqsLive = live(this, 'SqsLive', sqsFunction);
    grantSendTo(queues.deadLetters, sqsFunction);
    queues.source.grantConsumeMessages(sqsFunction);
    this.sqsEventSource = new lambda.EventSourceMapping(this, 'SqsEventSource', {
      target: this.sqsLive,
      eventSourceArn: queues.source.queueArn,
      batchSize: deployment.sqs.batchSize,
      ...(deployment.sqs.maxBatchingWindowSeconds > 0
        ? { maxBatchingWindow: Duration.seconds(deployment.sqs.maxBatchingWindowSeconds) }
        : {}),
      reportBatchItemFailures: true,
      ...(deployment.sqs.maxConcurrency === undefined
        ? {}
        : { maxConcurrency: deployment.sqs.maxConcurrency }),
      ...(deployment.sqs.provisionedPollers === undefined
        ? {}
        : {
            provisionedPollerConfig: {
              minimumPollers: deployment.sqs.provisionedPollers.min,
              maximumPollers: deployment.sqs.provisionedPollers.max,
            },
          }),
    });
    Validations.of(this.sqsEventSource).acknowledge({
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason:
        "Lambda offers no on-failure destination for SQS event sources: a record that keeps failing goes to the source queue's DLQ by its redrive policy, and one the function refuses it sends to the DLQ itself.",
    });
  }
}

/** `fn`'s current version behind the alias `live`. */
function live(scope: Construct, id: string, fn: lambda.Function): lambda.Alias {
  return new lambda.Alias(scope, id, { aliasName: LIVE_ALIAS, version: fn.currentVersion });
}
