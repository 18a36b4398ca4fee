/**
 * The alarms an operator needs first: something reached the DLQ, the source queue holds a
 * message too old (a stuck backlog), a function failed or was throttled, a front answered 5xx
 * (API Gateway's count on the API the construct made, the HTTP function's own elsewhere: the
 * team's API, a REST API, a Function URL); on a cache the stack owns, evictions, memory, replica lag
 * and, with ElastiCache durability, the transaction log. Each notifies the SNS topic when one
 * is configured.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { CacheMetrics } from '../cache/cache.js';

/** Memory use, in % of the node (or the storage limit), above which an operator must act. */
export const CACHE_MEMORY_ALARM_PERCENT = 80;
/** Seconds a replica may trail its primary: writes acknowledged by WAIT wait on this lag. */
export const REPLICATION_LAG_ALARM_SECONDS = 5;
/**
 * ms an async log may trail before an operator must act: half the 10 s after which the
 * primary refuses every write until the log catches up (ElastiCache "Durability: Options").
 */
export const DURABILITY_LAG_ALARM_MS = 5_000;
/**
 * Seconds the source queue's oldest message may wait: beyond a few of the redelivery cycles the
 * defaults give (visibility 180 s), the SQS face is not keeping up or is refusing every batch.
 */
export const BACKLOG_AGE_ALARM_SECONDS = 900;
/** An alarm's math expression may read at most this many metrics. */
const METRICS_PER_ALARM = 10;

export interface EchoMqAlarmsProps {
  readonly functions: Readonly<Record<string, lambda.IFunction>>;
  /** The DLQ, where there is an SQS face. */
  readonly deadLetters: sqs.IQueue | undefined;
  /** The source queue, where there is an SQS face. */
  readonly source: sqs.IQueue | undefined;
  /**
   * 5xx answers of the HTTP face: API Gateway's on the API the construct made, else the HTTP
   * function's own count (the team's API, a REST API, a Function URL). Default: no HTTP face.
   */
  readonly serverErrors: cloudwatch.IMetric | undefined;
  /** The cache's metrics, where the stack owns the cache. Default: none (no cache alarms). */
  readonly cache?: CacheMetrics | undefined;
  /** SNS topic the alarms notify. Default: none. */
  readonly topicArn?: string | undefined;
}

const PERIOD = Duration.minutes(5);

export class EchoMqAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: EchoMqAlarmsProps) {
    super(scope, id);
    if (props.deadLetters !== undefined) {
      this.add(
        'DeadLettersNotEmpty',
        'Messages wait in the DLQ: permanently failed records or records SQS gave up on.',
        props.deadLetters.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
      );
    }
    if (props.source !== undefined) {
      this.add(
        'SourceBacklogAge',
        `The source queue's oldest message has waited ${BACKLOG_AGE_ALARM_SECONDS} s or more: the SQS face is not keeping up or keeps failing (see its errors and the DLQ).`,
        props.source.metricApproximateAgeOfOldestMessage({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
        BACKLOG_AGE_ALARM_SECONDS,
      );
    }
    for (const [name, fn] of Object.entries(props.functions)) {
      this.add(
        `${name}Errors`,
        `The ${name} function failed.`,
        fn.metricErrors({ period: PERIOD }),
      );
      this.add(
        `${name}Throttles`,
        `The ${name} function was throttled.`,
        fn.metricThrottles({ period: PERIOD }),
      );
    }
    if (props.serverErrors !== undefined) {
      this.add(
        'Api5xx',
        'The HTTP face answered 5xx (Valkey unavailable or refusing, or a function failure).',
        props.serverErrors,
      );
    }

    if (props.cache !== undefined) this.addCacheAlarms(props.cache);

    if (props.topicArn !== undefined) {
      const action = new SnsAction(sns.Topic.fromTopicArn(this, 'Topic', props.topicArn));
      for (const alarm of this.alarms) alarm.addAlarmAction(action);
    }
  }

  private addCacheAlarms(cache: CacheMetrics): void {
    const watch = (
      id: string,
      description: string,
      metrics: readonly cloudwatch.IMetric[],
      threshold: number,
    ) => {
      // MAX over the nodes: one node evicting or full is enough to break a promise.
      for (let start = 0; start < metrics.length; start += METRICS_PER_ALARM) {
        const chunk = metrics.slice(start, start + METRICS_PER_ALARM);
        const suffix =
          metrics.length > METRICS_PER_ALARM ? String(start / METRICS_PER_ALARM + 1) : '';
        const metric =
          chunk.length === 1 && chunk[0] !== undefined
            ? chunk[0]
            : new cloudwatch.MathExpression({
                expression: `MAX([${chunk.map((_, index) => `m${index}`).join(',')}])`,
                usingMetrics: Object.fromEntries(chunk.map((m, index) => [`m${index}`, m])),
                period: Duration.minutes(1),
                label: id,
              });
        this.add(`${id}${suffix}`, description, metric, threshold);
      }
    };
    watch(
      'CacheEvictions',
      'The cache evicted keys: idempotency records or rows may be gone; add memory or shards.',
      cache.evictions,
      1,
    );
    watch(
      'CacheMemory',
      `Cache memory use is above ${CACHE_MEMORY_ALARM_PERCENT} %: writes will be refused (noeviction) when it is full; scale up or out.`,
      cache.memoryPercent,
      CACHE_MEMORY_ALARM_PERCENT,
    );
    watch(
      'CacheReplicationLag',
      `A replica trails its primary by ${REPLICATION_LAG_ALARM_SECONDS} s or more: acknowledged writes (EMQ_ACK_REPLICAS) wait or answer EMQ_UNCONFIRMED, and a failover to it starts behind.`,
      cache.replicationLag,
      REPLICATION_LAG_ALARM_SECONDS,
    );
    const log = cache.durabilityLog;
    if (log === undefined) return;
    watch(
      'CacheDurabilityLag',
      `An acknowledged write has waited ${DURABILITY_LAG_ALARM_MS} ms or more for the durability log (async): a failure now loses it; at 10 s the primary refuses writes.`,
      log.lag,
      DURABILITY_LAG_ALARM_MS,
    );
    watch(
      'CacheDurabilityBufferExceeded',
      'The primary refused writes because the durability log trailed by 10 s (async): callers got retryable errors until it caught up.',
      log.bufferExceeded,
      1,
    );
    watch(
      'CacheLogThrottled',
      'Writes exceed what the durability log takes (up to 100 MiB/s per primary) and are throttled: add shards.',
      log.throttled,
      1,
    );
  }

  private add(id: string, description: string, metric: cloudwatch.IMetric, threshold = 1): void {
    this.alarms.push(
      new cloudwatch.Alarm(this, id, {
        alarmDescription: `echomq-lambda: ${description}`,
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
  }
}
