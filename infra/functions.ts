/**
 * The two faces: the HTTP function behind the API and the SQS function fed by the source
 * queue (batches of 10, partial batch responses, bounded concurrency).
 */
import { Duration } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { BundledFunction } from './bundled-function.js';
import type { EchoMqCache } from './cache/cache.js';
import { emqEnvironment } from './environment.js';
import type { EchoMqNetwork } from './network.js';
import type { EchoMqQueues } from './queues.js';
import type { ResolvedSettings } from './settings.js';

export interface EchoMqFunctionsProps {
  readonly settings: ResolvedSettings;
  readonly network: EchoMqNetwork;
  readonly cache: EchoMqCache;
  readonly queues: EchoMqQueues;
}

export class EchoMqFunctions extends Construct {
  readonly http: lambda.Function;
  readonly sqs: lambda.Function;
  /** Polling starts when this exists; the stack makes it wait for the fence. */
  readonly sqsEventSource: lambda.EventSourceMapping;

  constructor(scope: Construct, id: string, props: EchoMqFunctionsProps) {
    super(scope, id);
    const { settings, network, cache, queues } = props;
    const shared = { settings, network, cache };

    this.http = new BundledFunction(this, 'Http', {
      ...shared,
      bundle: 'http',
      description: 'echomq-lambda HTTP face: POST/PUT/GET /queues/{queue}/jobs',
      timeoutSeconds: settings.http.timeoutSeconds,
      memoryMiB: settings.http.memoryMiB,
      environment: emqEnvironment(settings),
    }).function;

    this.sqs = new BundledFunction(this, 'Sqs', {
      ...shared,
      bundle: 'sqs',
      description: 'echomq-lambda SQS face: records become jobs',
      timeoutSeconds: settings.sqs.timeoutSeconds,
      memoryMiB: settings.sqs.memoryMiB,
      environment: {
        ...emqEnvironment(settings),
        EMQ_DEFAULT_QUEUE: settings.emq.defaultQueue,
        EMQ_DLQ_URL: queues.deadLetters.queueUrl,
      },
    }).function;
    queues.deadLetters.grantSendMessages(this.sqs);
    queues.source.grantConsumeMessages(this.sqs);
    this.sqsEventSource = new lambda.EventSourceMapping(this, 'SqsEventSource', {
      target: this.sqs,
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
  }
}
