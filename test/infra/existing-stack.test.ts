// The stack on an existing Valkey endpoint (the module's or not: MemoryDB, plain Valkey), with
// a JWT authorizer and an alarm topic: synthesized once, checked where it differs from the
// ElastiCache default.
import { beforeAll, describe, expect, it } from 'vitest';
import { FENCE_RESOURCE_TYPE } from '../../infra/constructs/fence-installer.js';
import { OPERATIONS } from '../../openapi/operations.js';
import { awsSolutionsFindings, serverlessFindings } from './support/nag.js';
import { type Synthesized, synthStack } from './support/synth.js';
import {
  environmentOf,
  getAtt,
  onlyResource,
  projectFunctions,
  resourcesOf,
} from './support/template.js';

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:emq-valkey-AbCdEf';
const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:emq-alarms';
const ISSUER = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_example';

let synthesized: Synthesized;
let template: Synthesized['template'];

beforeAll(() => {
  synthesized = synthStack({
    cache: {
      kind: 'existing',
      urls: ['valkey-1.internal.example:6380', 'rediss://valkey-2.internal.example:6380'],
      secretArn: SECRET_ARN,
    },
    http: { auth: { kind: 'jwt', issuer: ISSUER, audience: ['emq-clients'] }, throttleRate: 20 },
    alarmTopicArn: TOPIC_ARN,
  });
  template = synthesized.template;
});

describe('cache=existing', () => {
  it('creates no ElastiCache resources', () => {
    expect(Object.keys(template.toJSON().Resources).join(' ')).not.toMatch(/ElastiCache/);
    for (const type of ['ReplicationGroup', 'User', 'UserGroup', 'SubnetGroup']) {
      template.resourceCountIs(`AWS::ElastiCache::${type}`, 0);
    }
  });

  it('points every function at the seeds over TLS, the family chosen at connect (native with the module, else function)', () => {
    for (const fn of Object.values(projectFunctions(template))) {
      expect(environmentOf(fn)).toMatchObject({
        EMQ_URL: 'rediss://valkey-1.internal.example:6380,rediss://valkey-2.internal.example:6380',
        EMQ_CLUSTER: 'true',
        EMQ_EXECUTOR: 'auto',
        EMQ_SECRET_ARN: SECRET_ARN,
      });
    }
  });

  it('lets the functions read the named secret', () => {
    const readers = Object.values(resourcesOf(template, 'AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy.Properties).includes(SECRET_ARN),
    );
    expect(readers).toHaveLength(3);
  });

  it("opens the functions' egress to the endpoint port only, beside the AWS endpoints", () => {
    const [functionsSg, group] = onlyResource(
      template,
      'AWS::EC2::SecurityGroup',
      'FunctionsSecurityGroup',
    );
    expect(group.Properties.SecurityGroupEgress).toEqual([
      expect.objectContaining({
        CidrIp: '0.0.0.0/0',
        IpProtocol: 'tcp',
        FromPort: 6380,
        ToPort: 6380,
      }),
    ]);
    const separate = Object.values(resourcesOf(template, 'AWS::EC2::SecurityGroupEgress')).filter(
      (rule) =>
        JSON.stringify(rule.Properties.GroupId) === JSON.stringify(getAtt(functionsSg, 'GroupId')),
    );
    expect(separate.map((rule) => rule.Properties.FromPort)).toEqual([443, 443]);
  });

  it('installs the fence with the family chosen at connect and outputs the seeds', () => {
    const [, fence] = onlyResource(template, FENCE_RESOURCE_TYPE);
    expect(fence.Properties).toMatchObject({
      Executor: 'auto',
      Endpoint: 'valkey-1.internal.example:6380,valkey-2.internal.example:6380',
    });
    template.hasOutput('CacheEndpoint', {
      Value: 'valkey-1.internal.example:6380,valkey-2.internal.example:6380',
    });
  });
});

describe('auth=jwt', () => {
  it('authorizes every route with the JWT authorizer of the issuer and audience', () => {
    const [authorizerId] = onlyResource(template, 'AWS::ApiGatewayV2::Authorizer');
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: { Issuer: ISSUER, Audience: ['emq-clients'] },
    });
    const routes = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Route'));
    expect(routes).toHaveLength(OPERATIONS.length);
    for (const route of routes) {
      expect(route.Properties).toMatchObject({
        AuthorizationType: 'JWT',
        AuthorizerId: { Ref: authorizerId },
      });
    }
  });

  it('throttles at the chosen rate', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 20, ThrottlingBurstLimit: 200 },
    });
  });
});

describe('alarm topic', () => {
  it('is notified by every alarm', () => {
    const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(7);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([TOPIC_ARN]);
  });
});

describe('cdk-nag', () => {
  it('finds nothing unacknowledged in the AwsSolutions pack', () => {
    expect(awsSolutionsFindings(synthesized.stack)).toEqual([]);
    expect(serverlessFindings(synthesized.stack)).toEqual([]);
  });
});
