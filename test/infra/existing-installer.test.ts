// The installer's credentials on an existing cache (docs/deploy.md, "Into an existing account"), as
// synthesized: without `installer` the fence resource verifies with the functions' credentials;
// with one it installs with those only, and only the installer's role may read them.
import type { Stack } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { describe, expect, it } from 'vitest';
import { FENCE_RESOURCE_TYPE } from '../../infra/constructs/fence-installer.js';
import { EchoMqCache } from '../../infra/index.js';
import { composeEchoMq } from './support/construct.js';
import {
  environmentOf,
  onlyResource,
  projectFunctions,
  type Resource,
  resourcesOf,
} from './support/template.js';

const APP_SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:jobs-app-AbCdEf';
const INSTALLER_SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:jobs-admin-GhIjKl';
const ENDPOINT = 'clustercfg.jobs.abc123.euw1.cache.amazonaws.com:6379';

const secret = (stack: Stack, id: string, arn: string) =>
  secretsmanager.Secret.fromSecretCompleteArn(stack, id, arn);

type Template = ReturnType<typeof composeEchoMq>['template'];

/** The installer function and the text of every policy on its role. */
function installerOf(template: Template): { fn: Resource; policies: string; others: string } {
  const functions = Object.values(projectFunctions(template));
  const fn = functions.find((candidate) =>
    String(candidate.Properties.Description).includes('installs the wire identity'),
  );
  if (fn === undefined) throw new Error('no installer function');
  const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const policies = Object.values(resourcesOf(template, 'AWS::IAM::Policy'));
  const onRole = (policy: Resource) =>
    JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]);
  return {
    fn,
    policies: JSON.stringify(policies.filter(onRole).map((policy) => policy.Properties)),
    others: JSON.stringify(
      policies.filter((policy) => !onRole(policy)).map((policy) => policy.Properties),
    ),
  };
}

describe('EchoMqCache.existing without installer credentials', () => {
  const { template } = composeEchoMq((stack) => ({
    cache: EchoMqCache.existing({ endpoint: ENDPOINT, secret: secret(stack, 'App', APP_SECRET) }),
  }));

  it("verifies only, as the functions' user", () => {
    const [, fence] = onlyResource(template, FENCE_RESOURCE_TYPE);
    expect(fence.Properties.Mode).toBe('verify');
    const { fn, policies } = installerOf(template);
    expect(environmentOf(fn).EMQ_SECRET_ARN).toBe(APP_SECRET);
    expect(policies).toContain(APP_SECRET);
  });
});

describe('EchoMqCache.existing with an installer secret', () => {
  const { template } = composeEchoMq((stack) => ({
    cache: EchoMqCache.existing({
      endpoint: ENDPOINT,
      secret: secret(stack, 'App', APP_SECRET),
      installer: { secret: secret(stack, 'Installer', INSTALLER_SECRET) },
    }),
  }));

  it('installs, reading the installer secret and only it', () => {
    const [, fence] = onlyResource(template, FENCE_RESOURCE_TYPE);
    expect(fence.Properties.Mode).toBe('install');
    const { fn, policies, others } = installerOf(template);
    expect(environmentOf(fn).EMQ_SECRET_ARN).toBe(INSTALLER_SECRET);
    expect(policies).toContain(INSTALLER_SECRET);
    expect(policies).not.toContain(APP_SECRET);
    // The functions never read the installer's secret.
    expect(others).not.toContain(INSTALLER_SECRET);
    for (const other of Object.values(projectFunctions(template))) {
      if (other === fn) continue;
      expect(environmentOf(other).EMQ_SECRET_ARN).toBe(APP_SECRET);
    }
  });
});

describe('EchoMqCache.existing with an installer IAM user', () => {
  const { template } = composeEchoMq((stack) => ({
    cache: EchoMqCache.existing({
      endpoint: ENDPOINT,
      secret: secret(stack, 'App', APP_SECRET),
      installer: { iam: { userId: 'jobs-installer', cacheName: 'Jobs' } },
    }),
  }));

  it('installs with IAM tokens for that user, reading no secret', () => {
    const [, fence] = onlyResource(template, FENCE_RESOURCE_TYPE);
    expect(fence.Properties.Mode).toBe('install');
    const { fn, policies } = installerOf(template);
    const environment = environmentOf(fn);
    expect(environment).toMatchObject({
      EMQ_IAM_AUTH: 'true',
      EMQ_USERNAME: 'jobs-installer',
      EMQ_IAM_CACHE_NAME: 'jobs',
      EMQ_IAM_SERVERLESS: 'false',
    });
    expect(environment.EMQ_SECRET_ARN).toBeUndefined();
    expect(policies).toContain('elasticache:Connect');
    expect(policies).toContain(':user:jobs-installer');
    expect(policies).not.toContain('secretsmanager:GetSecretValue');
  });
});

describe('installer credentials from settings', () => {
  it('refuses two sources at once and a malformed ARN, naming each', () => {
    expect(() =>
      composeEchoMq(() => ({
        cache: EchoMqCache.fromSpec({
          kind: 'existing',
          urls: [ENDPOINT],
          installer: { secretArn: 'jobs-admin', iam: { userId: 'u', cacheName: 'c' } },
        }),
      })),
    ).toThrow(
      /installer takes one of secret or iam[\s\S]*valkeyInstallerSecretArn must be a Secrets Manager secret's complete ARN/,
    );
  });
});
