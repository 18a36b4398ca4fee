/**
 * The faces, one row each, as infra/cache/registry.ts has one per cache kind: everything the
 * deployment knows of a face. Its bundle (`functions/<name>/handler.ts`, which scripts/build.ts
 * builds to `functions/<name>/` and the local stack runs), its function (description, timeout,
 * memory, the environment beyond the settings of src/settings/settings-table.ts), what invokes it
 * where the construct wires it itself (an event source), its alarms and its dashboard rows. The
 * runtime side is the face's folder, `functions/<name>/`. A face's front that is a construct of
 * its own (the HTTP face's API, REST API or Function URL) stays in infra/constructs/.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { BundleName } from '../deployment/bundles.js';
import type { ResolvedDeployment } from '../deployment/deployment.js';
import { grantSendTo } from './queue-send.js';

/** What the construct made for the faces apart from their functions, handed to every row. */
export interface FaceWiring {
  readonly deployment: ResolvedDeployment;
  /** The SQS face's queues, where it has them. */
  readonly queues?: { readonly source: sqs.IQueue; readonly deadLetters: sqs.IQueue } | undefined;
  /** The HTTP face's 5xx answers, where it has a front (its alarms are made after the fronts). */
  readonly serverErrors?: cloudwatch.IMetric | undefined;
}

/** One face's function, published behind its alias `live`. */
export interface FaceFunction {
  readonly fn: lambda.Function;
  readonly live: lambda.Alias;
}

/** An alarm of a face, beside the errors and throttles every face's function has. */
export interface FaceAlarm {
  readonly id: string;
  readonly description: string;
  readonly metric: cloudwatch.IMetric;
  /** @default `1` */
  readonly threshold?: number;
}

/** What a face's dashboard rows draw with. */
export interface FaceGraphs {
  /** This face's metric of this deployment (functions/shared/metrics.ts). */
  metric(metricName: string, statistic: string): cloudwatch.IMetric;
  /** Every series of one metric name of this deployment, split by `dimensions`. */
  search(
    dimensions: string,
    metricName: string,
    statistic: string,
    label: string,
  ): cloudwatch.IMetric;
  graph(title: string, left: cloudwatch.IMetric[]): cloudwatch.IWidget;
}

export interface FaceRow {
  /**
   * The face's name: its folder under functions/ and its bundle's under the bundle directory, its
   * metrics' `Face` dimension, and the `faces` of the settings that reach only it.
   */
  readonly name: BundleName;
  /** Its constructs' id: the function `Functions/<id>`, its alias `<id>Live`, its alarms `<id>Errors`. */
  readonly id: string;
  readonly description: string;
  /** The metric counting what it answered (functions/shared/metrics.ts). */
  readonly requests: string;
  /** Its function's timeout and memory. */
  sizing(deployment: ResolvedDeployment): { timeoutSeconds: number; memoryMiB: number };
  /** Its function's variables beyond the settings. */
  environment?(wiring: FaceWiring): Record<string, string>;
  /** Grants and what invokes the alias, made in the functions' scope; a front of its own is made apart. */
  wire?(
    scope: Construct,
    face: FaceFunction,
    wiring: FaceWiring,
  ): lambda.EventSourceMapping | undefined;
  /** Its alarms beyond its function's errors and throttles. */
  alarms?(wiring: FaceWiring): FaceAlarm[];
  /** Its rows of the dashboard. */
  dashboard(graphs: FaceGraphs, wiring: FaceWiring): cloudwatch.IWidget[][];
}

/**
 * Seconds the source queue's oldest message may wait: beyond a few of the redelivery cycles the
 * defaults give (visibility 180 s), the SQS face is not keeping up or is refusing every batch.
 */
export const BACKLOG_AGE_ALARM_SECONDS = 900;

const http = {
  name: 'http',
  id: 'Http',
  description: 'echomq-lambda HTTP face: POST/PUT/GET/HEAD /queues/{queue}/jobs...',
  requests: 'Requests',
  sizing: (deployment) => deployment.http,
  alarms: ({ serverErrors }) =>
    serverErrors === undefined
      ? []
      : [
          {
            id: 'Api5xx',
            description:
              'The HTTP face answered 5xx (Valkey unavailable or refusing, or a function failure).',
            metric: serverErrors,
          },
        ],
  dashboard: ({ search, graph }) => [
    [
      graph('HTTP requests by outcome', [search('Face,Outcome', 'Requests', 'Sum', 'http')]),
      graph('HTTP latency p50 / p99 (ms)', [
        search('Face,Outcome', 'Latency', 'p50', 'p50'),
        search('Face,Outcome', 'Latency', 'p99', 'p99'),
      ]),
    ],
  ],
} as const satisfies FaceRow;

/** A queue's visible messages, the most of each minute: what the DLQ's alarm and graph read. */
const depthOf = (queue: sqs.IQueue) =>
  queue.metricApproximateNumberOfMessagesVisible({
    period: Duration.minutes(1),
    statistic: 'Maximum',
  });

const sqsFace = {
  name: 'sqs',
  id: 'Sqs',
  description: 'echomq-lambda SQS face: records become jobs',
  requests: 'Records',
  sizing: (deployment) => deployment.sqs,
  environment: ({ queues }): Record<string, string> =>
    queues === undefined ? {} : { EMQ_DLQ_URL: queues.deadLetters.queueUrl },
  wire: (scope, { fn, live }, { deployment, queues }) => {
    if (queues === undefined) return undefined;
    const { sqs } = deployment;
    grantSendTo(queues.deadLetters, fn);
    queues.source.grantConsumeMessages(fn);
    const source = new lambda.EventSourceMapping(scope, 'SqsEventSource', {
      target: live,
      eventSourceArn: queues.source.queueArn,
      batchSize: sqs.batchSize,
      ...(sqs.maxBatchingWindowSeconds > 0
        ? { maxBatchingWindow: Duration.seconds(sqs.maxBatchingWindowSeconds) }
        : {}),
      reportBatchItemFailures: true,
      ...(sqs.maxConcurrency === undefined ? {} : { maxConcurrency: sqs.maxConcurrency }),
      ...(sqs.provisionedPollers === undefined
        ? {}
        : {
            provisionedPollerConfig: {
              minimumPollers: sqs.provisionedPollers.min,
              maximumPollers: sqs.provisionedPollers.max,
            },
          }),
    });
    Validations.of(source).acknowledge({
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason:
        "Lambda offers no on-failure destination for SQS event sources: a record that keeps failing goes to the source queue's DLQ by its redrive policy, and one the function refuses it sends to the DLQ itself.",
    });
    return source;
  },
  alarms: ({ queues }) =>
    queues === undefined
      ? []
      : [
          {
            id: 'DeadLettersNotEmpty',
            description:
              'Messages wait in the DLQ: permanently failed records or records SQS gave up on.',
            metric: depthOf(queues.deadLetters),
          },
          {
            id: 'SourceBacklogAge',
            description: `The source queue's oldest message has waited ${BACKLOG_AGE_ALARM_SECONDS} s or more: the SQS face is not keeping up or keeps failing (see its errors and the DLQ).`,
            metric: queues.source.metricApproximateAgeOfOldestMessage({
              period: Duration.minutes(1),
              statistic: 'Maximum',
            }),
            threshold: BACKLOG_AGE_ALARM_SECONDS,
          },
        ],
  dashboard: ({ search, metric, graph }, { queues }) => [
    [
      graph('SQS records by outcome', [search('Face,Outcome,Code', 'Records', 'Sum', 'sqs')]),
      graph('SQS batches and batch item failures', [
        metric('Batches', 'Sum'),
        metric('BatchItemFailures', 'Sum'),
        metric('FullyRetriedBatches', 'Sum'),
      ]),
      graph('SQS batch duration p50 / p99 (ms)', [
        metric('BatchDuration', 'p50'),
        metric('BatchDuration', 'p99'),
      ]),
    ],
    [graph('DLQ depth', queues === undefined ? [] : [depthOf(queues.deadLetters)])],
  ],
} as const satisfies FaceRow;

/** Every face, in the order their constructs are made. */
export const FACES = [http, sqsFace] as const satisfies readonly FaceRow[];

export type FaceName = (typeof FACES)[number]['name'];

/** The faces a deployment has: the props leave one out with `false`. */
export type FaceChoice = Readonly<Record<FaceName, boolean>>;

/** The row of one face. */
export function faceNamed(name: FaceName): (typeof FACES)[number] {
  const row = FACES.find((face) => face.name === name);
  if (row === undefined) throw new Error(`no face ${name}`);
  return row;
}
