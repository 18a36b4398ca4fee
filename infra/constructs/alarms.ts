/**
 * The alarms an operator needs first: a face's function failed or was throttled, and each face's
 * own, from its row of infra/faces/registry.ts (something reached the DLQ, the source queue holds
 * a message too old, a front answered 5xx: API Gateway's count on the API the construct made, the
 * HTTP function's own elsewhere: the team's API, a REST API, a Function URL); on a cache the stack owns, evictions, memory, replica lag
 * and, with ElastiCache durability, the transaction log. Each notifies the SNS topic when one
 * is configured.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { CacheMetrics } from '../cache/cache.js';
import type { FaceRow, FaceWiring } from '../faces/registry.js';

/** Memory use, in % of the node (or the storage limit), above which an operator must act. */
export const CACHE_MEMORY_ALARM_PERCENT = 80;
/** Seconds a replica may trail its primary: writes acknowledged by WAIT wait on this lag. */
export const REPLICATION_LAG_ALARM_SECONDS = 5;
/**
 * ms an async log may trail before an operator must act: half the 10 s after which the
 * primary refuses every write until the log catches up (ElastiCache "Durability: Options").
 */
export const DURABILITY_LAG_ALARM_MS = 5_000;
/** An alarm's math expression may read at most this many metrics. */
const METRICS_PER_ALARM = 10;

export interface EchoMqAlarmsProps {
  /** The faces' functions, each with its row (infra/faces/registry.ts), whose alarms it adds. */
  readonly functions: readonly { readonly fn: lambda.IFunction; readonly row: FaceRow }[];
  /** What the faces' alarms watch: their queues and fronts. */
  readonly faces: FaceWiring;
  /**
   * The cache's metrics, where the stack owns the cache.
   * @default none (no cache alarms)
   */
  readonly cache?: CacheMetrics | undefined;
  /**
   * SNS topic the alarms notify.
   * @default none
   */
  readonly topicArn?: string | undefined;
}

const PERIOD = Duration.minutes(5);

export class EchoMqAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: EchoMqAlarmsProps) {
    super(scope, id);
    for (const { fn, row } of props.functions) {
      const name = row.id;
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
      for (const alarm of row.alarms?.(props.faces) ?? []) {
        this.add(alarm.id, alarm.description, alarm.metric, alarm.threshold);
      }
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
