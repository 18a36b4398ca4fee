// docs/upgrading.md "Rolling out, and back", releases roll out safely: each face is a published
// version behind the alias `live` that the routes and the event source invoke; a gradual rollout is
// opt-in (CodeDeploy, rolled back by the construct's alarms), and the installer is told of it, to
// refuse one across wire identities (test/infra/fence-rollout.test.ts runs that on a real server).
import { LambdaDeploymentConfig } from 'aws-cdk-lib/aws-codedeploy';
import { describe, expect, it } from 'vitest';
import { FENCE_RESOURCE_TYPE } from '../../infra/constructs/fence-installer.js';
import { EchoMqCache } from '../../infra/index.js';
import { composeEchoMq } from './support/construct.js';
import { awsSolutionsFindings, serverlessFindings } from './support/nag.js';
import { onlyResource, resourcesOf } from './support/template.js';

const cache = () => EchoMqCache.existing({ endpoint: 'valkey.internal.example:6379' });

describe('the alias live', () => {
  const { template, echoMq } = composeEchoMq(() => ({ cache: cache() }));

  it('is what every route invokes, and the fence comes first', () => {
    const [httpAlias, alias] = onlyResource(template, 'AWS::Lambda::Alias', 'HttpLive');
    expect(alias.Properties).toMatchObject({ Name: 'live' });
    const uris = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Integration')).map(
      (integration) => integration.Properties.IntegrationUri,
    );
    expect(uris).toEqual([{ Ref: httpAlias }]);
    const [fence] = onlyResource(template, FENCE_RESOURCE_TYPE);
    expect(alias.DependsOn).toContain(fence);
    expect(echoMq.httpAlias?.aliasName).toBe('live');
  });

  it('deploys all at once by default: no CodeDeploy, and the installer is told so', () => {
    template.resourceCountIs('AWS::CodeDeploy::DeploymentGroup', 0);
    const [, fence] = onlyResource(template, FENCE_RESOURCE_TYPE);
    expect(fence.Properties.Rollout).toBe('all-at-once');
  });
});

describe('a gradual rollout', () => {
  const { template, echoMq, stack } = composeEchoMq(() => ({
    cache: cache(),
    rollout: { preference: LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES },
  }));

  it('shifts each alias by CodeDeploy, rolled back by the alarms, and tells the installer', () => {
    const groups = Object.values(resourcesOf(template, 'AWS::CodeDeploy::DeploymentGroup'));
    expect(groups).toHaveLength(2);
    for (const group of groups) {
      expect(group.Properties).toMatchObject({
        DeploymentConfigName: 'CodeDeployDefault.LambdaCanary10Percent5Minutes',
        AlarmConfiguration: { Enabled: true },
        AutoRollbackConfiguration: { Enabled: true },
      });
      expect((group.Properties.AlarmConfiguration as { Alarms: unknown[] }).Alarms.length).toBe(
        echoMq.alarms.length,
      );
    }
    const aliases = Object.values(resourcesOf(template, 'AWS::Lambda::Alias'));
    for (const alias of aliases)
      expect(alias.UpdatePolicy).toHaveProperty('CodeDeployLambdaAliasUpdate');
    const [, fence] = onlyResource(template, FENCE_RESOURCE_TYPE);
    expect(fence.Properties.Rollout).toBe('gradual');
  });

  it('passes both cdk-nag packs', () => {
    expect(awsSolutionsFindings(stack)).toEqual([]);
    expect(serverlessFindings(stack)).toEqual([]);
  });
});
