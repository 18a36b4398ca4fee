/**
 * CloudWatch metrics in the Embedded Metric Format: a JSON log line that CloudWatch turns into
 * metrics, so a function publishes them without an API call or an SDK.
 */
import { writeRecord } from './log.js';

export const METRICS_NAMESPACE = 'EchoMQ/Lambda';

export interface Metric {
  readonly name: string;
  readonly value: number;
  readonly unit: 'Count' | 'Milliseconds';
}

/** Emits metrics under one set of dimensions (for example the face and the outcome code). */
export function emitMetrics(
  dimensions: Readonly<Record<string, string>>,
  metrics: readonly Metric[],
): void {
  writeRecord({
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [
        {
          Namespace: METRICS_NAMESPACE,
          Dimensions: [Object.keys(dimensions)],
          Metrics: metrics.map(({ name, unit }) => ({ Name: name, Unit: unit })),
        },
      ],
    },
    ...dimensions,
    ...Object.fromEntries(metrics.map((metric) => [metric.name, metric.value])),
  });
}
