/**
 * The CloudWatch metrics of a node-based ElastiCache cluster, for the alarms and the dashboard.
 * ElastiCache publishes engine metrics per node (CacheClusterId `<group>-<shard:4>-<node:3>`).
 * Node ids are known at synthesis, so no SEARCH is needed (alarms cannot use one).
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { CacheMetrics, DurabilityLogMetrics } from '../cache.js';
import type { Durability } from './durability.js';

export const NAMESPACE = 'AWS/ElastiCache';
export const PERIOD = Duration.minutes(1);

function nodeMetric(metricName: string, cacheClusterId: string, statistic: string) {
  return new cloudwatch.Metric({
    namespace: NAMESPACE,
    metricName,
    dimensionsMap: { CacheClusterId: cacheClusterId },
    statistic,
    period: PERIOD,
  });
}

export function replicationGroupMetrics(
  replicationGroupId: string,
  layout: {
    readonly shards: number;
    readonly replicasPerShard: number;
    /** The log's mode where the engine has one (9.x); `off` or undefined: no log to watch. */
    readonly durability?: Durability | undefined;
  },
): CacheMetrics {
  const nodes: { id: string; replica: boolean }[] = [];
  for (let shard = 1; shard <= layout.shards; shard++) {
    for (let node = 1; node <= layout.replicasPerShard + 1; node++) {
      const id = `${replicationGroupId}-${String(shard).padStart(4, '0')}-${String(node).padStart(3, '0')}`;
      // The first node of a shard starts as its primary; after a failover the roles swap,
      // which is why every node is watched, not only the primaries.
      nodes.push({ id, replica: node > 1 });
    }
  }
  return {
    label: 'ElastiCache node',
    cpu: nodes.map(({ id }) => nodeMetric('EngineCPUUtilization', id, 'Maximum')),
    memoryPercent: nodes.map(({ id }) =>
      nodeMetric('DatabaseMemoryUsagePercentage', id, 'Maximum'),
    ),
    evictions: nodes.map(({ id }) => nodeMetric('Evictions', id, 'Sum')),
    replicationLag: nodes
      .filter(({ replica }) => replica)
      .map(({ id }) => nodeMetric('ReplicationLag', id, 'Maximum')),
    durabilityLog: durabilityLogMetrics(
      nodes.map(({ id }) => id),
      layout.durability,
    ),
  };
}

/**
 * The durability page names the metrics, not their dimensions: they are read per node
 * (CacheClusterId), as ElastiCache's other engine metrics, on every node since a failover
 * moves the primary. DurabilityLag and DurabilityBufferExceededErrorCount are always 0 with
 * `sync` (the page says so), so only `async` watches them.
 */
function durabilityLogMetrics(
  nodeIds: readonly string[],
  durability: Durability | undefined,
): DurabilityLogMetrics | undefined {
  if (durability === undefined || durability === 'off') return undefined;
  const trailing = durability === 'async';
  return {
    lag: trailing ? nodeIds.map((id) => nodeMetric('DurabilityLag', id, 'Maximum')) : [],
    bufferExceeded: trailing
      ? nodeIds.map((id) => nodeMetric('DurabilityBufferExceededErrorCount', id, 'Sum'))
      : [],
    throttled: nodeIds.map((id) => nodeMetric('TrafficManagementActive', id, 'Maximum')),
  };
}
