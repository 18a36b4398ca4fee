/**
 * The faces' own metrics of one deployment, as CloudWatch reads them: the EMF lines of
 * functions/shared/metrics.ts, in namespace EchoMQ/Lambda, carry a `Deployment` dimension the
 * construct sets (EMQ_DEPLOYMENT), so a dashboard, an alarm or a team's `metric*()` reads only
 * its own deployment. Each metric is published by its deployment and face, and by its outcome too.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import type { FaceName } from '../faces/registry.js';

/** The namespace the faces publish their EMF metrics in (functions/shared/metrics.ts). */
export const FACE_METRICS_NAMESPACE = 'EchoMQ/Lambda';
/** The dimension that names the deployment (functions/shared/metrics.ts). */
const DEPLOYMENT = 'Deployment';

/** A face of infra/faces/registry.ts. */
export type Face = FaceName;

/** The name the construct gives its deployment: its stack's name and its path in the stack. */
export function deploymentNameOf(scope: Construct): string {
  const stack = Stack.of(scope);
  const inStack = scope.node.path.slice(stack.node.path.length + 1);
  return `${stack.stackName}/${inStack}`;
}

export class FaceMetrics {
  constructor(readonly deployment: string) {}

  /** One face's metric, of one outcome where given. */
  metric(
    face: Face,
    metricName: string,
    options: cloudwatch.MetricOptions & { readonly outcome?: string } = {},
  ): cloudwatch.Metric {
    const { outcome, ...rest } = options;
    return new cloudwatch.Metric({
      namespace: FACE_METRICS_NAMESPACE,
      metricName,
      statistic: 'Sum',
      period: Duration.minutes(5),
      ...rest,
      dimensionsMap: {
        [DEPLOYMENT]: this.deployment,
        Face: face,
        ...(outcome === undefined ? {} : { Outcome: outcome }),
        ...rest.dimensionsMap,
      },
    });
  }

  /** Every series of one metric name of this deployment, split by `dimensions` (a dashboard's graph). */
  search(dimensions: string, metricName: string, statistic: string, label: string) {
    const period = Duration.minutes(1);
    return new cloudwatch.MathExpression({
      expression: `SEARCH('{${FACE_METRICS_NAMESPACE},${DEPLOYMENT},${dimensions}} ${DEPLOYMENT}="${this.deployment}" MetricName="${metricName}"', '${statistic}', ${period.toSeconds()})`,
      label,
      period,
    });
  }
}
