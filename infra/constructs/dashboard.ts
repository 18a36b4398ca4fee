/**
 * One CloudWatch dashboard for an operator: what callers sent and got (requests and outcomes,
 * latency p50/p99), how the SQS face copes (batch failures, DLQ depth), and how the cache holds
 * up (CPU, memory, evictions, and the durability log where ElastiCache keeps one). The faces'
 * own metrics come from their EMF lines
 * (functions/shared/metrics.ts: namespace EchoMQ/Lambda, dimensions Face and Outcome).
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { CacheMetrics, DurabilityLogMetrics } from '../cache/cache.js';
import type { FaceMetrics } from './face-metrics.js';

export interface EchoMqDashboardProps {
  /** This deployment's face metrics. */
  readonly faces: FaceMetrics;
  /** The DLQ, where there is an SQS face. */
  readonly deadLetters: sqs.IQueue | undefined;
  /**
   * The cache's metrics, where the stack owns the cache.
   * @default no cache row
   */
  readonly cache?: CacheMetrics | undefined;
}

const PERIOD = Duration.minutes(1);

export class EchoMqDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: EchoMqDashboardProps) {
    super(scope, id);
    const { faces } = props;
    const search = faces.search.bind(faces);
    const face = (metricName: string, statistic: string) =>
      faces.metric('sqs', metricName, { statistic, period: PERIOD });
    const graph = (title: string, left: cloudwatch.IMetric[], width = 8) =>
      new cloudwatch.GraphWidget({ title, left, width, height: 6 });

    const rows: cloudwatch.IWidget[][] = [
      [
        graph('HTTP requests by outcome', [search('Face,Outcome', 'Requests', 'Sum', 'http')]),
        graph('SQS records by outcome', [search('Face,Outcome,Code', 'Records', 'Sum', 'sqs')]),
        graph('HTTP latency p50 / p99 (ms)', [
          search('Face,Outcome', 'Latency', 'p50', 'p50'),
          search('Face,Outcome', 'Latency', 'p99', 'p99'),
        ]),
      ],
      [
        graph('SQS batches and batch item failures', [
          face('Batches', 'Sum'),
          face('BatchItemFailures', 'Sum'),
          face('FullyRetriedBatches', 'Sum'),
        ]),
        graph('SQS batch duration p50 / p99 (ms)', [
          face('BatchDuration', 'p50'),
          face('BatchDuration', 'p99'),
        ]),
        graph(
          'DLQ depth',
          props.deadLetters === undefined
            ? []
            : [
                props.deadLetters.metricApproximateNumberOfMessagesVisible({
                  period: PERIOD,
                  statistic: 'Maximum',
                }),
              ],
        ),
      ],
    ];
    if (props.cache !== undefined) {
      const { cache } = props;
      rows.push([
        graph(`${cache.label}: CPU`, [...cache.cpu]),
        graph(`${cache.label}: memory %`, [...cache.memoryPercent]),
        graph(`${cache.label}: evictions`, [...cache.evictions]),
      ]);
      const log = cache.durabilityLog;
      if (log !== undefined) rows.push(durabilityRow(cache.label, log, graph));
    }
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
      widgets: rows,
    });
  }
}

/** The log's graphs: only those whose metric can be non-zero in this mode (sync has no lag). */
function durabilityRow(
  label: string,
  log: DurabilityLogMetrics,
  graph: (title: string, left: cloudwatch.IMetric[]) => cloudwatch.IWidget,
): cloudwatch.IWidget[] {
  const graphs: [string, readonly cloudwatch.IMetric[]][] = [
    [`${label}: durability log lag (ms)`, log.lag],
    [`${label}: writes refused by the log buffer`, log.bufferExceeded],
    [`${label}: writes throttled by the log (1 = throttling)`, log.throttled],
  ];
  return graphs
    .filter(([, metrics]) => metrics.length > 0)
    .map(([title, metrics]) => graph(title, [...metrics]));
}
