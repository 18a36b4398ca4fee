/**
 * CloudWatch metrics in the Embedded Metric Format: a JSON log line that CloudWatch turns into
 * metrics, so a function publishes them without an API call or an SDK. Every metric carries
 * the `Deployment` dimension first, then the face's own.
 */

import { SETTINGS } from '../../src/settings/settings-table.js';
import { writeLine } from './log.js';
import { logSettings } from './log-config.js';

/** The dimension that names the deployment on every metric: its dashboard and alarms read only it. */
export const DEPLOYMENT_DIMENSION = 'Deployment';

let deployment: string | undefined;

/** EMQ_DEPLOYMENT (its row of the settings table), read once: a container's is fixed. */
function deploymentName(): string {
  deployment ??= process.env[SETTINGS.deployment.env]?.trim() || SETTINGS.deployment.default;
  return deployment;
}

export interface Metric {
  readonly name: string;
  readonly value: number;
  readonly unit: 'Count' | 'Milliseconds';
}

/**
 * The EMF fields of one metrics document: the `_aws` block, the dimensions and the values.
 * Merged into a log line, the line is both the log line and the metrics (one line, one
 * JSON.stringify, half the log volume).
 */
export function metricsFields(
  dimensions: Readonly<Record<string, string>>,
  metrics: readonly Metric[],
): Record<string, unknown> {
  // Built by assignment, in the order the document always had: `_aws`, the dimensions, the
  // values (a log line is written once per request or batch; spreads and fromEntries showed).
  const definitions = new Array<{ Name: string; Unit: Metric['unit'] }>(metrics.length);
  const fields: Record<string, unknown> = {
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [
        {
          // POWERTOOLS_METRICS_NAMESPACE, else EchoMQ/Lambda (log-config.ts).
          Namespace: logSettings().metricsNamespace,
          Dimensions: dimensionSets(Object.keys(dimensions)),
          Metrics: definitions,
        },
      ],
    },
  };
  fields[DEPLOYMENT_DIMENSION] = deploymentName();
  for (const name in dimensions) fields[name] = dimensions[name];
  for (let at = 0; at < metrics.length; at++) {
    const { name, value, unit } = metrics[at] as Metric;
    definitions[at] = { Name: name, Unit: unit };
    fields[name] = value;
  }
  return fields;
}

/**
 * The deployment with every dimension given, and where there are more than the first (the
 * face), the deployment and the face alone too: an alarm or a `metric*()` of the construct
 * reads a face's total without knowing every outcome.
 */
function dimensionSets(names: readonly string[]): string[][] {
  const all = [DEPLOYMENT_DIMENSION, ...names];
  return names.length > 1 ? [all, all.slice(0, 2)] : [all];
}

/** Emits metrics on a line of their own (where no log line goes out with them). */
export function emitMetrics(
  dimensions: Readonly<Record<string, string>>,
  metrics: readonly Metric[],
): void {
  writeLine(metricsFields(dimensions, metrics));
}
