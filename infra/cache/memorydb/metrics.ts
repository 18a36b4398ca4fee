/**
 * The CloudWatch metrics of a MemoryDB cluster, for the alarms and the dashboard. MemoryDB
 * publishes engine metrics per node (namespace AWS/MemoryDB, dimensions ClusterName and
 * NodeName `<cluster>-<shard:4>-<node:3>`), so every node is watched: a failover moves the
 * primary. MemoryDB publishes ReplicationLag too, but no alarm watches it: a replica is never
 * the only copy of an acknowledged write (the transaction log is), so a trailing replica loses
 * nothing on failover.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { CacheMetrics } from '../cache.js';

const PERIOD = Duration.minutes(1);

export function memoryDbMetrics(
  clusterName: string,
  layout: { readonly shards: number; readonly replicasPerShard: number },
): CacheMetrics {
  const nodes: string[] = [];
  for (let shard = 1; shard <= layout.shards; shard++) {
    for (let node = 1; node <= layout.replicasPerShard + 1; node++) {
      nodes.push(
        `${clusterName}-${String(shard).padStart(4, '0')}-${String(node).padStart(3, '0')}`,
      );
    }
  }
  const metric = (metricName: string, nodeName: string, statistic: string) =>
    new cloudwatch.Metric({
      namespace: 'AWS/MemoryDB',
      metricName,
      dimensionsMap: { ClusterName: clusterName, NodeName: nodeName },
      statistic,
      period: PERIOD,
    });
  return {
    label: 'MemoryDB node',
    cpu: nodes.map((node) => metric('EngineCPUUtilization', node, 'Maximum')),
    memoryPercent: nodes.map((node) => metric('DatabaseMemoryUsagePercentage', node, 'Maximum')),
    evictions: nodes.map((node) => metric('Evictions', node, 'Sum')),
    replicationLag: [],
  };
}
