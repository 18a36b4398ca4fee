// cacheAuth=iam on both ElastiCache kinds: an IAM-enabled user, the HTTP and SQS functions
// granted elasticache:Connect on that cache and that user only and told what to sign tokens
// for, no password for them; the installer keeps its password; cdk-nag still passes.
import { describe, expect, it } from 'vitest';
import { DEFAULT_ACCESS_STRING } from '../../infra/cache/elasticache/spec.js';
import { SERVERLESS_ACCESS_STRING } from '../../infra/cache/serverless/spec.js';
import { deploymentFromContext } from '../../infra/deployment/context.js';
import { resolveDeployment } from '../../infra/deployment/deployment.js';
import { awsSolutionsFindings, serverlessFindings } from './support/nag.js';
import { synthStack } from './support/synth.js';
import {
  environmentOf,
  getAtt,
  onlyResource,
  projectFunctions,
  type Resource,
  resourcesOf,
} from './support/template.js';

interface Statement {
  readonly Action: string | string[];
  readonly Resource: unknown;
}

describe.each([
  {
    kind: 'elasticache' as const,
    cacheType: 'AWS::ElastiCache::ReplicationGroup',
    rules: DEFAULT_ACCESS_STRING,
  },
  {
    kind: 'serverless' as const,
    cacheType: 'AWS::ElastiCache::ServerlessCache',
    rules: SERVERLESS_ACCESS_STRING,
  },
])('cache=$kind cacheAuth=iam', ({ kind, cacheType, rules }) => {
  const synthesized = synthStack({ cache: { kind, cacheAuth: 'iam' } });
  const { template } = synthesized;
  const functions = Object.entries(projectFunctions(template));
  const fn = (hint: string): Resource => {
    const found = functions.filter(([id]) => id.includes(hint));
    expect(found).toHaveLength(1);
    return (found[0] as [string, Resource])[1];
  };
  const statementsOf = (f: Resource): Statement[] => {
    const role = (f.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    return Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${role}"`))
      .flatMap(
        (policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement,
      );
  };
  const actionsOf = (f: Resource): string[] =>
    statementsOf(f).flatMap((statement) => [statement.Action].flat());
  const [userId, user] = onlyResource(template, 'AWS::ElastiCache::User', 'IamUser');
  const [, cache] = onlyResource(template, cacheType);
  const cacheName =
    kind === 'serverless'
      ? cache.Properties.ServerlessCacheName
      : cache.Properties.ReplicationGroupId;

  it("makes the functions' user IAM-enabled, its name its id, with the functions' rules, in the user group", () => {
    expect(user.Properties).toEqual({
      Engine: 'valkey',
      UserId: user.Properties.UserName,
      UserName: expect.stringMatching(/^emq-[a-z0-9-]+-iam$/),
      AccessString: rules,
      AuthenticationMode: { Type: 'iam' },
    });
    const [, group] = onlyResource(template, 'AWS::ElastiCache::UserGroup');
    expect(group.Properties.UserIds).toContain(user.Properties.UserId);
    expect(group.DependsOn).toContain(userId);
    expect(cacheName).toMatch(/^emq-[a-z0-9-]+$/);
    // No password user and no secret of the functions: only the installer's and the
    // switched-off default user's passwords remain.
    const users = Object.values(resourcesOf(template, 'AWS::ElastiCache::User'));
    expect(users.map((u) => u.Properties.UserName).sort()).toEqual(
      ['default', 'emq-installer', user.Properties.UserName].sort(),
    );
    expect(Object.keys(resourcesOf(template, 'AWS::SecretsManager::Secret')).sort()).toEqual([
      expect.stringMatching(/^CacheDisabledDefaultUserPassword/),
      expect.stringMatching(/^CacheInstallerCredentials/),
    ]);
  });

  it('tells the HTTP and SQS functions what to sign tokens for, and gives them no password', () => {
    for (const face of ['Http', 'Sqs']) {
      const environment = environmentOf(fn(face));
      expect(environment).toMatchObject({
        EMQ_IAM_AUTH: 'true',
        EMQ_USERNAME: user.Properties.UserId,
        EMQ_IAM_CACHE_NAME: cacheName,
        EMQ_IAM_SERVERLESS: String(kind === 'serverless'),
      });
      expect(environment).not.toHaveProperty('EMQ_SECRET_ARN');
      expect(environment).not.toHaveProperty('EMQ_PASSWORD');
    }
  });

  it('grants them elasticache:Connect on this cache and this user only, and no secret', () => {
    for (const face of ['Http', 'Sqs']) {
      const connects = statementsOf(fn(face)).filter((s) =>
        [s.Action].flat().includes('elasticache:Connect'),
      );
      expect(connects).toHaveLength(1);
      const [connect] = connects as [Statement];
      expect(connect.Action).toBe('elasticache:Connect');
      const resources = connect.Resource as unknown[];
      expect(resources).toHaveLength(2);
      const resourceType = kind === 'serverless' ? 'serverlesscache' : 'replicationgroup';
      expect(JSON.stringify(resources[0])).toContain(
        `:elasticache:eu-west-1:123456789012:${resourceType}:${cacheName}"`,
      );
      expect(resources[1]).toEqual(getAtt(userId, 'Arn'));
      expect(actionsOf(fn(face)).some((action) => action.startsWith('secretsmanager:'))).toBe(
        false,
      );
    }
  });

  it('keeps the installer on its own password: its secret, no IAM variables, no Connect', () => {
    const installer = fn('FenceOnEvent');
    const environment = environmentOf(installer);
    const [secretId] = onlyResource(
      template,
      'AWS::SecretsManager::Secret',
      'InstallerCredentials',
    );
    expect(environment.EMQ_SECRET_ARN).toEqual({ Ref: secretId });
    expect(environment).not.toHaveProperty('EMQ_IAM_AUTH');
    expect(actionsOf(installer)).toContain('secretsmanager:GetSecretValue');
    expect(actionsOf(installer)).not.toContain('elasticache:Connect');
  });

  it('passes cdk-nag', () => {
    expect(awsSolutionsFindings(synthesized.stack)).toEqual([]);
    expect(serverlessFindings(synthesized.stack)).toEqual([]);
  });
});

describe('cacheAuth=password (the default)', () => {
  const { template } = synthStack({ cache: { kind: 'serverless' } });
  it('creates no IAM user and grants no elasticache:Connect', () => {
    for (const [, user] of Object.entries(resourcesOf(template, 'AWS::ElastiCache::User'))) {
      expect(user.Properties).not.toHaveProperty('AuthenticationMode');
    }
    expect(JSON.stringify(resourcesOf(template, 'AWS::IAM::Policy'))).not.toContain(
      'elasticache:Connect',
    );
    for (const [, f] of Object.entries(projectFunctions(template))) {
      expect(environmentOf(f)).toHaveProperty('EMQ_SECRET_ARN');
      expect(environmentOf(f)).not.toHaveProperty('EMQ_IAM_AUTH');
    }
  });
});

describe('-c cacheAuth', () => {
  const problemsOf = (values: Record<string, string>): string[] => {
    const { deployment, problems } = deploymentFromContext(
      (key) => values[key],
      Object.keys(values),
    );
    return [...problems, ...resolveDeployment(deployment).problems];
  };

  it('reads iam for both ElastiCache kinds', () => {
    for (const cache of ['elasticache', 'serverless']) {
      const values = { cache, cacheAuth: 'iam' };
      const { deployment } = deploymentFromContext((key) => values[key as keyof typeof values]);
      expect(deployment.cache).toMatchObject({ kind: cache, cacheAuth: 'iam' });
      expect(problemsOf(values)).toEqual([]);
    }
  });

  it('refuses iam where the stack does not own an ElastiCache or MemoryDB cache, and a value it does not know', () => {
    expect(problemsOf({ cache: 'existing', valkeyEndpoint: 'v:6380', cacheAuth: 'iam' })).toEqual([
      'cacheAuth=iam applies only to cache=elasticache or cache=serverless or cache=memorydb (IAM authentication); cache=existing authenticates with a password.',
    ]);
    expect(problemsOf({ cache: 'selfmanaged', cacheAuth: 'iam' })).toContain(
      'cacheAuth=iam applies only to cache=elasticache or cache=serverless or cache=memorydb (IAM authentication); cache=selfmanaged authenticates with a password.',
    );
    expect(problemsOf({ cacheAuth: 'token' })).toEqual([
      "cacheAuth must be one of password, iam; got 'token'.",
    ]);
    expect(problemsOf({ cacheauth: 'iam' })).toEqual([
      "unknown context key 'cacheauth': did you mean 'cacheAuth'?",
    ]);
  });
});
