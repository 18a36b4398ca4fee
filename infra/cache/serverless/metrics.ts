/** The CloudWatch metrics of an ElastiCache Serverless cache: per cache (`clusterId`), not per node. */
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { CacheMetrics } from '../cache.js';
import { NAMESPACE, PERIOD } from '../elasticache/metrics.js';

export function serverlessMetrics(cacheName: string, dataStorageMaxGb: number): CacheMetrics {
  const metric = (metricName: string, statistic: string) =>
    new cloudwatch.Metric({
      namespace: NAMESPACE,
      metricName,
      dimensionsMap: { clusterId: cacheName },
      statistic,
      period: PERIOD,
    });
  const limitBytes = dataStorageMaxGb * 1_000_000_000;
  return {
    label: 'Serverless cache',
    cpu: [metric('ElastiCacheProcessingUnits', 'Sum')],
    memoryPercent: [
      new cloudwatch.MathExpression({
        expression: `100 * bytes / ${limitBytes}`,
        usingMetrics: { bytes: metric('BytesUsedForCache', 'Maximum') },
        label: 'Data stored, % of the storage limit',
        period: PERIOD,
      }),
    ],
    evictions: [metric('Evictions', 'Sum')],
    replicationLag: [],
  };
}
