/**
 * One CloudWatch dashboard for an operator: each face's rows, from its row of
 * infra/faces/registry.ts (what callers sent and got: requests and outcomes, latency p50/p99; how
 * the SQS face copes: batch failures, DLQ depth), and how the cache holds up (CPU, memory, evictions, and the durability log where ElastiCache keeps one). The faces'
 * own metrics come from their EMF lines
 * (functions/shared/metrics.ts: namespace EchoMQ/Lambda, dimensions Face and Outcome).
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { CacheMetrics, DurabilityLogMetrics } from '../cache/cache.js';
import { FACES, type FaceChoice, type FaceWiring } from '../faces/registry.js';
import type { FaceMetrics } from './face-metrics.js';

export interface EchoMqDashboardProps {
  /** This deployment's face metrics. */
  readonly metrics: FaceMetrics;
  /** The faces the deployment has: each brings its rows. */
  readonly faces: FaceChoice;
  /** What the faces' rows draw beside their metrics (the DLQ). */
  readonly wiring: FaceWiring;
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
    const { metrics } = props;
    const graph = (title: string, left: cloudwatch.IMetric[], width = 8) =>
      new cloudwatch.GraphWidget({ title, left, width, height: 6 });

    const rows: cloudwatch.IWidget[][] = FACES.filter((face) => props.faces[face.name]).flatMap(
      (face) =>
        face.dashboard(
          {
            metric: (metricName, statistic) =>
              metrics.metric(face.name, metricName, { statistic, period: PERIOD }),
            search: metrics.search.bind(metrics),
            graph: (title, left) => graph(title, left),
          },
          props.wiring,
        ),
    );
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
