// ElastiCache durability (`-c durability=sync|async|off`): what each choice synthesizes, the
// acknowledgement the functions get, the alarms and graphs the log adds, and the refusals
// where AWS does not offer it (engine, node type, Serverless).
import { beforeAll, describe, expect, it } from 'vitest';
import { deploymentFromContext } from '../../infra/deployment/context.js';
import { resolveDeployment } from '../../infra/deployment/deployment.js';
import { awsSolutionsFindings, serverlessFindings } from './support/nag.js';
import { type Synthesized, synthStack } from './support/synth.js';
import {
  environmentOf,
  onlyResource,
  projectFunctions,
  type Resource,
  resourcesOf,
} from './support/template.js';

const contextOf =
  (values: Record<string, unknown>) =>
  (key: string): unknown =>
    values[key];

/** The metric names the stack's cache alarms read. */
function cacheAlarmMetrics(template: Synthesized['template']): string[] {
  return Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'))
    .filter((alarm) => JSON.stringify(alarm.Properties).includes('CacheClusterId'))
    .map((alarm) => JSON.stringify(alarm.Properties).match(/"MetricName":"(\w+)"/)?.[1] ?? '')
    .sort();
}

function alarmOn(template: Synthesized['template'], metric: string): Resource {
  const found = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).find((alarm) =>
    JSON.stringify(alarm.Properties).includes(`"MetricName":"${metric}"`),
  );
  if (found === undefined) throw new Error(`no alarm on ${metric}`);
  return found;
}

function dashboardBody(template: Synthesized['template']): string {
  const [, dashboard] = onlyResource(template, 'AWS::CloudWatch::Dashboard');
  return JSON.stringify(dashboard.Properties.DashboardBody);
}

function ackReplicasOf(template: Synthesized['template']): unknown[] {
  return Object.values(projectFunctions(template)).map((fn) => environmentOf(fn).EMQ_ACK_REPLICAS);
}

describe('durability=sync (the default)', () => {
  let synthesized: Synthesized;
  beforeAll(() => {
    synthesized = synthStack({ cache: { kind: 'elasticache', durability: 'sync' } });
  });

  it('synthesizes a replication group with Durability sync, TLS, cluster mode, Multi-AZ and replicas', () => {
    const [, group] = onlyResource(synthesized.template, 'AWS::ElastiCache::ReplicationGroup');
    expect(group.Properties).toMatchObject({
      Durability: 'sync',
      EngineVersion: '9.1',
      CacheNodeType: 'cache.m7g.large',
      TransitEncryptionEnabled: true,
      TransitEncryptionMode: 'required',
      AtRestEncryptionEnabled: true,
      ClusterMode: 'enabled',
      MultiAZEnabled: true,
      AutomaticFailoverEnabled: true,
      ReplicasPerNodeGroup: 1,
    });
    expect(group.Properties.DataTieringEnabled).toBeUndefined();
  });

  it('needs no WAIT: EMQ_ACK_REPLICAS is 0', () => {
    expect(ackReplicasOf(synthesized.template)).toEqual(['0', '0', '0']);
  });

  it('alarms on and graphs log throttling, not the lag and refusals that sync never has', () => {
    const metrics = cacheAlarmMetrics(synthesized.template);
    expect(metrics).toContain('TrafficManagementActive');
    expect(metrics).not.toContain('DurabilityLag');
    expect(metrics).not.toContain('DurabilityBufferExceededErrorCount');
    const body = dashboardBody(synthesized.template);
    expect(body).toContain('TrafficManagementActive');
    expect(body).not.toContain('DurabilityLag');
  });

  it('passes cdk-nag', () => {
    expect(awsSolutionsFindings(synthesized.stack)).toEqual([]);
    expect(serverlessFindings(synthesized.stack)).toEqual([]);
  });

  it('keeps an explicit ackReplicas', () => {
    const { deployment, problems } = resolveDeployment({ settings: { ackReplicas: 1 } });
    expect(problems).toEqual([]);
    expect(deployment.settings.ackReplicas).toBe(1);
  });
});

describe('durability=async', () => {
  let synthesized: Synthesized;
  beforeAll(() => {
    synthesized = synthStack({ cache: { kind: 'elasticache', durability: 'async' } });
  });

  it('synthesizes Durability async and waits for a replica as without a log', () => {
    synthesized.template.hasResourceProperties('AWS::ElastiCache::ReplicationGroup', {
      Durability: 'async',
      CacheNodeType: 'cache.m7g.large',
    });
    expect(ackReplicasOf(synthesized.template)).toEqual(['1', '1', '1']);
  });

  it('alarms on the log lag at 5 s, on refused writes and on throttling, over every node', () => {
    expect(cacheAlarmMetrics(synthesized.template)).toEqual(
      expect.arrayContaining([
        'DurabilityBufferExceededErrorCount',
        'DurabilityLag',
        'TrafficManagementActive',
      ]),
    );
    const lag = alarmOn(synthesized.template, 'DurabilityLag');
    expect(lag.Properties.Threshold).toBe(5_000);
    // 2 shards x 2 nodes, in one MAX expression.
    expect(JSON.stringify(lag.Properties)).toContain('MAX([m0,m1,m2,m3])');
    expect(
      alarmOn(synthesized.template, 'DurabilityBufferExceededErrorCount').Properties,
    ).toMatchObject({ Threshold: 1 });
    const body = dashboardBody(synthesized.template);
    for (const metric of ['DurabilityLag', 'DurabilityBufferExceededErrorCount']) {
      expect(body).toContain(metric);
    }
  });
});

describe('durability=off', () => {
  it('sets Durability disabled on 9.x, the burstable default node, and WAIT on a replica', () => {
    const { template } = synthStack({ cache: { kind: 'elasticache', durability: 'off' } });
    template.hasResourceProperties('AWS::ElastiCache::ReplicationGroup', {
      Durability: 'disabled',
      EngineVersion: '9.1',
      CacheNodeType: 'cache.t4g.small',
    });
    expect(ackReplicasOf(template)).toEqual(['1', '1', '1']);
    expect(cacheAlarmMetrics(template)).not.toContain('TrafficManagementActive');
  });

  it('leaves the property out before 9.0, which has none (a stack deployed on 8.0 keeps its group)', () => {
    const { template } = synthStack({
      cache: { kind: 'elasticache', durability: 'off', engineVersion: '8.0' },
    });
    const [, group] = onlyResource(template, 'AWS::ElastiCache::ReplicationGroup');
    expect(group.Properties).toMatchObject({
      EngineVersion: '8.0',
      CacheNodeType: 'cache.t4g.small',
    });
    expect(group.Properties.Durability).toBeUndefined();
  });
});

describe('refusals', () => {
  it('refuses sync on 8.0, naming the engine', () => {
    expect(
      resolveDeployment({
        cache: { kind: 'elasticache', durability: 'sync', engineVersion: '8.0' },
      }).problems,
    ).toEqual([
      'durability=sync needs ElastiCache for Valkey 9.0 or later; engine 8.0 has no durability: set engineVersion=9.1 or durability=off.',
    ]);
  });

  it('refuses the default durability on an explicit 7.2 too: the choice is never dropped silently', () => {
    expect(
      resolveDeployment({ cache: { kind: 'elasticache', engineVersion: '7.2' } }).problems,
    ).toEqual([
      'durability=sync needs ElastiCache for Valkey 9.0 or later; engine 7.2 has no durability: set engineVersion=9.1 or durability=off.',
    ]);
  });

  it('refuses a node type AWS does not list for durability, naming it', () => {
    for (const nodeType of ['cache.t4g.small', 'cache.r6gd.xlarge', 'cache.m5.large']) {
      expect(
        resolveDeployment({ cache: { kind: 'elasticache', durability: 'async', nodeType } })
          .problems,
      ).toEqual([
        `durability=async is not offered on ${nodeType}: ElastiCache durability runs on the r8g, r7g, r6g, m8g, m7g, m6g, c8gn, c7gn node families only: set nodeType=cache.m7g.large or durability=off.`,
      ]);
    }
    for (const nodeType of ['cache.r7g.large', 'cache.m6g.xlarge', 'cache.c7gn.large']) {
      expect(
        resolveDeployment({ cache: { kind: 'elasticache', durability: 'sync', nodeType } })
          .problems,
      ).toEqual([]);
    }
  });

  it('reads -c durability and refuses an unknown value', () => {
    const { deployment, problems } = deploymentFromContext(
      contextOf({ durability: 'always', engineVersion: '9.0' }),
    );
    expect(problems).toEqual([]);
    expect(resolveDeployment(deployment).problems).toEqual([
      "durability must be one of sync, async, off; got 'always'.",
    ]);
  });

  it('refuses durability on Serverless, naming the topology AWS does not offer it on', () => {
    expect(
      deploymentFromContext(contextOf({ cache: 'serverless', durability: 'sync' })).problems,
    ).toEqual([
      'durability=sync is not offered on cache=serverless: AWS supports durability on node-based ElastiCache for Valkey 9.0 or later only, not on ElastiCache Serverless; use cache=elasticache.',
    ]);
    expect(
      deploymentFromContext(contextOf({ cache: 'selfmanaged', durability: 'async' })).problems,
    ).toEqual([
      'durability applies only to cache=elasticache (ElastiCache for Valkey 9.x node-based); cache=selfmanaged is not a cache the stack can give a durability log.',
    ]);
  });
});
