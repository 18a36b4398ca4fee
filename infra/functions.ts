/**
 * The two faces: the HTTP function behind the API and the SQS function fed by the source
 * queue (batches of 10, partial batch responses, bounded concurrency). Either may be left out.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { BundledFunction } from './bundled-function.js';
import type { CacheTarget } from './cache/cache.js';
import type { EchoMqFunctionProps } from './echomq-props.js';
import { emqEnvironment } from './environment.js';
import type { EchoMqNetwork } from './network.js';
import type { EchoMqQueues } from './queues.js';
import type { ResolvedSettings } from './settings.js';

export interface EchoMqFunctionsProps {
  readonly settings: ResolvedSettings;
  readonly network: EchoMqNetwork;
  readonly cache: CacheTarget;
  /** Make the HTTP function. */
  readonly http: boolean;
  /** The SQS face's queues; undefined: no SQS function. */
  readonly queues: EchoMqQueues | undefined;
  /** Merged over both functions' defaults. */
  readonly functionProps?: EchoMqFunctionProps | undefined;
}

export class EchoMqFunctions extends Construct {
  readonly http: lambda.Function | undefined;
  readonly sqs: lambda.Function | undefined;
  /** Polling starts when this exists; the construct makes it wait for the fence. */
  readonly sqsEventSource: lambda.EventSourceMapping | undefined;

  constructor(scope: Construct, id: string, props: EchoMqFunctionsProps) {
    super(scope, id);
    const { settings, network, cache, queues } = props;
    const shared = { settings, network, cache, overrides: props.functionProps };

    this.http = props.http
      ? new BundledFunction(this, 'Http', {
          ...shared,
          bundle: 'http',
          description: 'echomq-lambda HTTP face: POST/PUT/GET/HEAD /queues/{queue}/jobs...',
          timeoutSeconds: settings.http.timeoutSeconds,
          memoryMiB: settings.http.memoryMiB,
          environment: emqEnvironment(settings.emq, 'http'),
        }).function
      : undefined;

    if (queues === undefined) return;
    const sqsFunction = new BundledFunction(this, 'Sqs', {
      ...shared,
      bundle: 'sqs',
      description: 'echomq-lambda SQS face: records become jobs',
      timeoutSeconds: settings.sqs.timeoutSeconds,
      memoryMiB: settings.sqs.memoryMiB,
      environment: {
        ...emqEnvironment(settings.emq, 'sqs'),
        EMQ_DLQ_URL: queues.deadLetters.queueUrl,
      },
    }).function;
    this.sqs = sqsFunction;
    queues.deadLetters.grantSendMessages(sqsFunction);
    queues.source.grantConsumeMessages(sqsFunction);
    this.sqsEventSource = new lambda.EventSourceMapping(this, 'SqsEventSource', {
      target: sqsFunction,
      eventSourceArn: queues.source.queueArn,
      batchSize: settings.sqs.batchSize,
      ...(settings.sqs.maxBatchingWindowSeconds > 0
        ? { maxBatchingWindow: Duration.seconds(settings.sqs.maxBatchingWindowSeconds) }
        : {}),
      reportBatchItemFailures: true,
      ...(settings.sqs.maxConcurrency === undefined
        ? {}
        : { maxConcurrency: settings.sqs.maxConcurrency }),
      ...(settings.sqs.provisionedPollers === undefined
        ? {}
        : {
            provisionedPollerConfig: {
              minimumPollers: settings.sqs.provisionedPollers.min,
              maximumPollers: settings.sqs.provisionedPollers.max,
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
