// docs/operations.md "Alarms and the dashboard", watched per deployment: every face metric names
// its deployment (EMQ_DEPLOYMENT, set by the construct), the dashboard and the alarms read only
// their own, the backlog and 5xx alarms exist on every front, and the construct offers its metrics
// and alarms as L2s do.
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { describe, expect, it } from 'vitest';
import { EchoMq, EchoMqCache } from '../../infra/index.js';
import { composeEchoMq } from './support/construct.js';
import { standInBundles, TEST_ENV, temporaryDir } from './support/synth.js';
import { resourcesOf } from './support/template.js';

const cache = () => EchoMqCache.existing({ endpoint: 'valkey.internal.example:6379' });

/** Two deployments in one stack, as two teams' stacks in one region would be. */
function twoDeployments() {
  const app = new App({ outdir: temporaryDir('emq-cdk-out-') });
  const stack = new Stack(app, 'Shared', { env: TEST_ENV });
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
  const made = ['Orders', 'Billing'].map(
    (id) =>
      new EchoMq(stack, id, { vpc, cache: cache(), options: { bundleDir: standInBundles() } }),
  );
  return { made, template: Template.fromStack(stack) };
}

describe('two deployments in one region', () => {
  const { made, template } = twoDeployments();

  it("set their functions' EMQ_DEPLOYMENT to their own name", () => {
    expect(made.map((echoMq) => echoMq.deploymentName)).toEqual([
      'Shared/Orders',
      'Shared/Billing',
    ]);
    const names = Object.values(resourcesOf(template, 'AWS::Lambda::Function'))
      .map(
        (fn) =>
          (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)
            ?.Variables?.EMQ_DEPLOYMENT,
      )
      .filter((name) => name !== undefined);
    expect(names.sort()).toEqual([
      'Shared/Billing',
      'Shared/Billing',
      'Shared/Orders',
      'Shared/Orders',
    ]);
  });

  it('share no graph: every SEARCH of a dashboard names its own deployment', () => {
    const bodies = Object.values(resourcesOf(template, 'AWS::CloudWatch::Dashboard')).map(
      (dashboard) => JSON.stringify(dashboard.Properties.DashboardBody),
    );
    expect(bodies).toHaveLength(2);
    for (const [index, name] of ['Shared/Orders', 'Shared/Billing'].entries()) {
      const searches = bodies[index]?.match(/SEARCH\(.*?\)/g) ?? [];
      expect(searches).toHaveLength(4);
      for (const search of searches) expect(search).toContain(`Deployment=\\\\\\"${name}\\\\\\"`);
      expect(bodies[index]).not.toContain(
        name === 'Shared/Orders' ? 'Shared/Billing' : 'Shared/Orders',
      );
    }
  });

  it('share no alarm: each reads its own queues and functions', () => {
    const [orders, billing] = made;
    expect(orders?.alarms.length).toBe(billing?.alarms.length);
    const ids = (echoMq: EchoMq) => new Set(echoMq.alarms.map((alarm) => alarm.node.path));
    const theirs = ids(billing as EchoMq);
    for (const path of ids(orders as EchoMq)) expect(theirs.has(path)).toBe(false);
  });
});

describe('alarms a team pages on', () => {
  it("alarm on the source queue's oldest message and on the DLQ's depth", () => {
    const { template } = composeEchoMq(() => ({ cache: cache() }));
    const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'));
    const names = alarms.map((alarm) => alarm.Properties.MetricName);
    expect(names).toContain('ApproximateAgeOfOldestMessage');
    expect(names).toContain('ApproximateNumberOfMessagesVisible');
  });

  it("alarm on 5xx of a Function URL from the function's own count, this deployment's only", () => {
    const { template, echoMq } = composeEchoMq(() => ({
      cache: cache(),
      http: { functionUrl: true },
    }));
    const serverErrors = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).filter(
      (alarm) => alarm.Properties.MetricName === 'ServerErrors',
    );
    expect(serverErrors).toHaveLength(1);
    expect(serverErrors[0]?.Properties).toMatchObject({
      Namespace: 'EchoMQ/Lambda',
      Dimensions: expect.arrayContaining([
        { Name: 'Deployment', Value: echoMq.deploymentName },
        { Name: 'Face', Value: 'http' },
      ]),
    });
  });
});

describe('metric*() methods', () => {
  it("return this deployment's metrics by face and outcome", () => {
    const { echoMq } = composeEchoMq(() => ({ cache: cache() }));
    const enqueued = echoMq.metricRequests({ outcome: 'enqueued' });
    expect(enqueued.namespace).toBe('EchoMQ/Lambda');
    expect(enqueued.dimensions).toEqual({
      Deployment: 'UserStack/EchoMq',
      Face: 'http',
      Outcome: 'enqueued',
    });
    expect(echoMq.metricAdmittedJobs({ face: 'sqs' }).dimensions).toEqual({
      Deployment: 'UserStack/EchoMq',
      Face: 'sqs',
    });
    expect(echoMq.metricLatency().statistic).toBe('p99');
    expect(echoMq.metricBatchItemFailures().metricName).toBe('BatchItemFailures');
    expect(echoMq.metricServerErrors().metricName).toBe('ServerErrors');
  });
});
