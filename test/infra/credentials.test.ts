// Day two, credentials (docs/operations.md, "Rotating credentials"; docs/kms.md): the created
// caches' user secrets rotate on a schedule the deployment can change or turn off; a secret
// under the team's KMS key is readable by every role that reads it, through Secrets Manager
// only; sends to queues under the team's key pass both cdk-nag packs; and the team's key
// encrypts every log group the construct makes.
import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { EchoMqCache } from '../../infra/index.js';
import { MODULE_PATH } from '../support/servers.js';
import { composeEchoMq } from './support/construct.js';
import { awsSolutionsFindings, serverlessFindings } from './support/nag.js';
import { type Synthesized, synthStack } from './support/synth.js';
import {
  environmentOf,
  getAtt,
  onlyResource,
  projectFunctions,
  resourcesOf,
  rotationFunctions,
} from './support/template.js';

const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';
const TEAM_KEY = `arn:aws:kms:${REGION}:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;

type Template = Synthesized['template'];

/** The text of every policy attached to the role of the function `id`. */
function policiesOfFunction(template: Template, id: string): string {
  const fn = resourcesOf(template, 'AWS::Lambda::Function')[id];
  if (fn === undefined) throw new Error(`no function ${id}`);
  const role = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return JSON.stringify(
    Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(role))
      .map((policy) => policy.Properties.PolicyDocument),
  );
}

/** The one entry of a record, or a failure naming how many there were. */
function onlyEntry<T>(record: Record<string, T>): [string, T] {
  const entries = Object.entries(record);
  const [first] = entries;
  if (first === undefined || entries.length > 1) throw new Error(`${entries.length} entries`);
  return first;
}

function schedules(template: Template) {
  return Object.values(resourcesOf(template, 'AWS::SecretsManager::RotationSchedule')).map(
    (schedule) => schedule.Properties,
  );
}

/** The two schedules, every 30 days by the one rotation function, never at deploy. */
function thirtyDaySchedules(template: Template) {
  const [rotationId] = Object.keys(rotationFunctions(template));
  const rotated = schedules(template);
  expect(rotated).toHaveLength(2);
  for (const schedule of rotated) {
    expect(schedule).toMatchObject({
      RotationLambdaARN: getAtt(rotationId ?? '', 'Arn'),
      RotationRules: { ScheduleExpression: 'rate(30 days)' },
      RotateImmediatelyOnUpdate: false,
    });
  }
  return rotated;
}

describe('password rotation of a created ElastiCache cache (the default)', () => {
  let synthesized: Synthesized;
  beforeAll(() => {
    synthesized = synthStack({ cache: { kind: 'elasticache' } });
  });

  it('rotates the functions’ and the installer’s secrets every 30 days, never at deploy', () => {
    const { template } = synthesized;
    const rotated = thirtyDaySchedules(template);
    const [functionsSecret] = onlyResource(
      template,
      'AWS::SecretsManager::Secret',
      'CacheCredentials',
    );
    const [installerSecret] = onlyResource(
      template,
      'AWS::SecretsManager::Secret',
      'CacheInstallerCredentials',
    );
    expect(rotated.map((schedule) => schedule.SecretId)).toEqual(
      expect.arrayContaining([{ Ref: functionsSecret }, { Ref: installerSecret }]),
    );
  });

  it('gives the rotation function ModifyUser and DescribeUsers on those two users only, outside the VPC', () => {
    const { template } = synthesized;
    const [rotationId, rotation] = onlyEntry(rotationFunctions(template));
    expect(environmentOf(rotation)).toMatchObject({ ROTATED_SERVICE: 'elasticache' });
    expect(rotation.Properties.VpcConfig).toBeUndefined();
    const [appUser] = onlyResource(template, 'AWS::ElastiCache::User', 'CacheAppUser');
    const [installerUser] = onlyResource(template, 'AWS::ElastiCache::User', 'CacheInstallerUser');
    const policies = JSON.parse(policiesOfFunction(template, rotationId)) as {
      Statement: { Action: unknown; Resource: unknown }[];
    }[];
    const userStatement = policies
      .flatMap((policy) => policy.Statement)
      .find((statement) => JSON.stringify(statement.Action).includes('elasticache:ModifyUser'));
    expect(userStatement).toMatchObject({
      Action: ['elasticache:ModifyUser', 'elasticache:DescribeUsers'],
      Resource: [getAtt(appUser, 'Arn'), getAtt(installerUser, 'Arn')],
    });
  });

  it('passes both cdk-nag packs', () => {
    expect(awsSolutionsFindings(synthesized.stack)).toEqual([]);
    expect(serverlessFindings(synthesized.stack)).toEqual([]);
  });
});

describe('password rotation of a self-managed cluster', () => {
  let synthesized: Synthesized;
  beforeAll(() => {
    synthesized = synthStack({ cache: { kind: 'selfmanaged', moduleArtifact: MODULE_PATH } });
  });

  it('rotates the functions’ and the installer’s secrets every 30 days, not the admin’s', () => {
    const { template } = synthesized;
    const rotated = thirtyDaySchedules(template);
    const secret = (hint: string) => ({
      Ref: onlyResource(template, 'AWS::SecretsManager::Secret', hint)[0],
    });
    expect(rotated.map((schedule) => schedule.SecretId)).toEqual(
      expect.arrayContaining([secret('CacheCredentials'), secret('CacheInstallerCredentials')]),
    );
  });

  it('runs the rotation function in the VPC with the functions’ group, as the admin, on the nodes’ seeds', () => {
    const { template } = synthesized;
    const [, rotation] = onlyEntry(rotationFunctions(template));
    const [functionsGroup] = onlyResource(
      template,
      'AWS::EC2::SecurityGroup',
      'FunctionsSecurityGroup',
    );
    expect(rotation.Properties.VpcConfig).toMatchObject({
      SecurityGroupIds: [getAtt(functionsGroup, 'GroupId')],
    });
    const [adminSecret] = onlyResource(
      template,
      'AWS::SecretsManager::Secret',
      'CacheAdminCredentials',
    );
    const [fnId, http] = Object.entries(projectFunctions(template)).find(([id]) =>
      id.includes('Http'),
    ) ?? ['', undefined];
    expect(fnId).not.toBe('');
    const environment = environmentOf(rotation);
    expect(environment).toMatchObject({
      ROTATED_SERVICE: 'nodes',
      EMQ_SECRET_ARN: { Ref: adminSecret },
      EMQ_URL: environmentOf(http as NonNullable<typeof http>).EMQ_URL,
      EMQ_CLUSTER: 'true',
    });
    expect(environment.EMQ_TLS_CA).toBeDefined();
  });

  it('passes both cdk-nag packs', () => {
    expect(awsSolutionsFindings(synthesized.stack)).toEqual([]);
    expect(serverlessFindings(synthesized.stack)).toEqual([]);
  });

  it('at 0 leaves the nodes’ users alone, and says so to cdk-nag', () => {
    const off = synthStack({
      cache: { kind: 'selfmanaged', moduleArtifact: MODULE_PATH },
      passwordRotationDays: 0,
    });
    expect(schedules(off.template)).toEqual([]);
    expect(rotationFunctions(off.template)).toEqual({});
    expect(awsSolutionsFindings(off.stack)).toEqual([]);
  });
});

describe('passwordRotationDays', () => {
  it('changes the schedule', () => {
    const { template } = synthStack({ cache: { kind: 'serverless' }, passwordRotationDays: 7 });
    const rotated = schedules(template);
    expect(rotated).toHaveLength(2);
    for (const schedule of rotated) {
      expect(schedule.RotationRules).toEqual({ ScheduleExpression: 'rate(7 days)' });
    }
  });

  it('at 0 turns rotation off: no schedule, no rotation function, and both packs still pass', () => {
    const synthesized = synthStack({ cache: { kind: 'elasticache' }, passwordRotationDays: 0 });
    expect(schedules(synthesized.template)).toEqual([]);
    expect(rotationFunctions(synthesized.template)).toEqual({});
    expect(awsSolutionsFindings(synthesized.stack)).toEqual([]);
    expect(serverlessFindings(synthesized.stack)).toEqual([]);
  });

  it('is refused out of Secrets Manager’s range, naming the setting', () => {
    expect(() => synthStack({ passwordRotationDays: 1001 })).toThrow(
      /passwordRotationDays must be a whole number from 1 to 1000/,
    );
  });

  it('rotates MemoryDB users by UpdateUser, by user name', () => {
    const { template } = synthStack({ cache: { kind: 'memorydb' } });
    expect(schedules(template)).toHaveLength(2);
    const [rotationId, rotation] = onlyEntry(rotationFunctions(template));
    expect(environmentOf(rotation)).toMatchObject({ ROTATED_SERVICE: 'memorydb' });
    expect(policiesOfFunction(template, rotationId)).toContain(
      '["memorydb:UpdateUser","memorydb:DescribeUsers"]',
    );
  });

  it('leaves an existing cache alone: the team rotates its own users', () => {
    const { template } = synthStack({
      cache: {
        kind: 'existing',
        urls: ['valkey.internal.example:6379'],
        secretArn: `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:emq-AbCdEf`,
      },
    });
    expect(schedules(template)).toEqual([]);
    expect(rotationFunctions(template)).toEqual({});
  });
});

describe("an existing cache's secrets under the team's KMS key", () => {
  const keyed = (stack: Parameters<Parameters<typeof composeEchoMq>[0]>[0], name: string) =>
    secretsmanager.Secret.fromSecretAttributes(stack, name, {
      secretCompleteArn: `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${name}-AbCdEf`,
      encryptionKey: kms.Key.fromKeyArn(stack, `${name}Key`, TEAM_KEY),
    });
  const decryptViaSecretsManager = {
    Action: 'kms:Decrypt',
    Effect: 'Allow',
    Resource: TEAM_KEY,
    Condition: { StringEquals: { 'kms:ViaService': `secretsmanager.${REGION}.amazonaws.com` } },
  };

  it('give the HTTP, SQS and installer roles kms:Decrypt through Secrets Manager only', () => {
    const { template } = composeEchoMq((stack) => ({
      cache: EchoMqCache.existing({
        endpoint: 'valkey.internal.example:6379',
        secret: keyed(stack, 'Functions'),
        installer: { secret: keyed(stack, 'Installer') },
      }),
    }));
    const functions = Object.keys(projectFunctions(template));
    expect(functions).toHaveLength(3);
    for (const id of functions) {
      const statements = (
        JSON.parse(policiesOfFunction(template, id)) as { Statement: unknown[] }[]
      ).flatMap((policy) => policy.Statement);
      expect(statements, id).toContainEqual(decryptViaSecretsManager);
    }
  });

  it('give the installer that reads the functions’ secret (verify only) the same', () => {
    const { template } = composeEchoMq((stack) => ({
      cache: EchoMqCache.existing({
        endpoint: 'valkey.internal.example:6379',
        secret: keyed(stack, 'Functions'),
      }),
    }));
    const [installer] = Object.keys(projectFunctions(template)).filter((id) =>
      id.includes('Fence'),
    );
    const statements = (
      JSON.parse(policiesOfFunction(template, installer ?? '')) as { Statement: unknown[] }[]
    ).flatMap((policy) => policy.Statement);
    expect(statements).toContainEqual(decryptViaSecretsManager);
  });
});

describe("queues under the team's KMS key", () => {
  it('pass both cdk-nag packs, the SQS function and grantEnqueue naming the key actions SQS uses', () => {
    const { stack, template } = composeEchoMq(
      (stack) => {
        const queue = (name: string) =>
          sqs.Queue.fromQueueAttributes(stack, name, {
            queueArn: `arn:aws:sqs:${REGION}:${ACCOUNT}:${name}`,
            keyArn: TEAM_KEY,
          });
        return {
          cache: EchoMqCache.existing({ endpoint: 'valkey.internal.example:6379' }),
          http: false,
          sqs: {
            queue: queue('team-jobs'),
            deadLetterQueue: queue('team-jobs-dlq'),
            redelivery: {
              visibilityTimeout: Duration.seconds(60),
              maxReceiveCount: 5,
              retentionPeriod: Duration.days(4),
            },
          },
        };
      },
      (echoMq, stack) =>
        echoMq.grantEnqueue(
          new iam.Role(stack, 'Producer', { assumedBy: new iam.AccountRootPrincipal() }),
        ),
    );
    expect(awsSolutionsFindings(stack)).toEqual([]);
    expect(serverlessFindings(stack)).toEqual([]);
    const policies = JSON.stringify(resourcesOf(template, 'AWS::IAM::Policy'));
    expect(policies).not.toContain('kms:GenerateDataKey*');
    expect(policies).not.toContain('kms:ReEncrypt*');
    expect(policies).toContain(
      JSON.stringify({
        Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
        Condition: { StringEquals: { 'kms:ViaService': `sqs.${REGION}.amazonaws.com` } },
        Effect: 'Allow',
        Resource: TEAM_KEY,
      }),
    );
  });
});

describe('options.logGroupEncryptionKey', () => {
  it('encrypts every log group the construct makes with a key of the app, whose policy lets CloudWatch Logs use it', () => {
    const { template } = composeEchoMq((stack) => ({
      cache: EchoMqCache.elastiCache(),
      options: { logGroupEncryptionKey: new kms.Key(stack, 'LogKey', { enableKeyRotation: true }) },
    }));
    const [keyId, key] = onlyResource(template, 'AWS::KMS::Key', 'LogKey');
    const groups = Object.entries(resourcesOf(template, 'AWS::Logs::LogGroup')).filter(([id]) =>
      id.startsWith('EchoMq'),
    );
    // The HTTP, SQS, fence and rotation functions, the installer's framework, the API's access logs.
    expect(groups.length).toBeGreaterThanOrEqual(6);
    for (const [id, group] of groups) {
      expect(group.Properties.KmsKeyId, id).toEqual(getAtt(keyId, 'Arn'));
    }
    expect(JSON.stringify(key.Properties.KeyPolicy)).toContain(
      `"Service":"logs.${REGION}.amazonaws.com"`,
    );
  });

  it("encrypts them with an imported key's ARN", () => {
    const { template } = composeEchoMq((stack) => ({
      cache: EchoMqCache.existing({ endpoint: 'valkey.internal.example:6379' }),
      options: { logGroupEncryptionKey: kms.Key.fromKeyArn(stack, 'TeamLogKey', TEAM_KEY) },
    }));
    const groups = Object.entries(resourcesOf(template, 'AWS::Logs::LogGroup')).filter(([id]) =>
      id.startsWith('EchoMq'),
    );
    expect(groups.length).toBeGreaterThanOrEqual(4);
    for (const [id, group] of groups) expect(group.Properties.KmsKeyId, id).toBe(TEAM_KEY);
  });
});
