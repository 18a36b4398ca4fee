// docs/deploy.md "Into an existing account", the team's own choices: the routes on its API keep its
// authorizer, its queue's redelivery span is held to the duplicate window by the same rule as the
// construct's queues, and the override props are merged over the defaults.
import { Duration } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer, HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { EchoMqCache } from '../../infra/index.js';
import { OPERATIONS } from '../../openapi/operations.js';
import { composeEchoMq } from './support/construct.js';
import { onlyResource, projectFunctions, resourcesOf } from './support/template.js';

const ISSUER = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_example';
const cache = () => EchoMqCache.existing({ endpoint: 'valkey.internal.example:6379' });

type Template = ReturnType<typeof composeEchoMq>['template'];

/** Every route's authorization, as `type authorizer-id`. */
function routeAuthorizations(template: Template): string[] {
  return Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Route')).map(
    (route) =>
      `${route.Properties.AuthorizationType} ${JSON.stringify(route.Properties.AuthorizerId ?? null)}`,
  );
}

/** The text of every policy of the role named `Producer`. */
function producerPolicies(template: Template): string {
  const [roleId] = onlyResource(template, 'AWS::IAM::Role', 'Producer');
  return JSON.stringify(
    Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(roleId))
      .map((policy) => policy.Properties.PolicyDocument),
  );
}

const producer = (stack: Parameters<Parameters<typeof composeEchoMq>[0]>[0]) =>
  new iam.Role(stack, 'Producer', { assumedBy: new iam.AccountRootPrincipal() });

describe("routes on the team's HTTP API", () => {
  it("use the API's default JWT authorizer, and grantEnqueue grants no execute-api:Invoke", () => {
    const { template } = composeEchoMq(
      (stack) => ({
        cache: cache(),
        http: {
          api: new apigwv2.HttpApi(stack, 'TeamApi', {
            defaultAuthorizer: new HttpJwtAuthorizer('TeamJwt', ISSUER, {
              jwtAudience: ['team'],
            }),
            defaultAuthorizationScopes: ['jobs/write'],
          }),
        },
      }),
      (echoMq, stack) => echoMq.grantEnqueue(producer(stack)),
    );
    const [authorizerId] = onlyResource(template, 'AWS::ApiGatewayV2::Authorizer');
    const ours = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Route'));
    expect(ours).toHaveLength(OPERATIONS.length);
    for (const route of ours) {
      expect(route.Properties).toMatchObject({
        AuthorizationType: 'JWT',
        AuthorizerId: { Ref: authorizerId },
        AuthorizationScopes: ['jobs/write'],
      });
    }
    const policies = producerPolicies(template);
    expect(policies).not.toContain('execute-api:Invoke');
    expect(policies).toContain('sqs:SendMessage');
  });

  it('use http.authorizer over the default authorizer', () => {
    const { template } = composeEchoMq((stack) => ({
      cache: cache(),
      http: {
        api: new apigwv2.HttpApi(stack, 'TeamApi', {
          defaultAuthorizer: new HttpJwtAuthorizer('TeamJwt', ISSUER, { jwtAudience: ['team'] }),
        }),
        authorizer: new HttpJwtAuthorizer('EmqJwt', ISSUER, { jwtAudience: ['emq'] }),
      },
    }));
    const authorizers = resourcesOf(template, 'AWS::ApiGatewayV2::Authorizer');
    const [emqJwt] = Object.entries(authorizers).find(([, authorizer]) =>
      JSON.stringify(authorizer.Properties).includes('"emq"'),
    ) ?? [''];
    expect(new Set(routeAuthorizations(template))).toEqual(
      new Set([`JWT ${JSON.stringify({ Ref: emqJwt })}`]),
    );
  });

  it('use IAM on an API of the app without a default authorizer, and grantEnqueue grants invoke on them', () => {
    const { template } = composeEchoMq(
      (stack) => ({ cache: cache(), http: { api: new apigwv2.HttpApi(stack, 'TeamApi') } }),
      (echoMq, stack) => echoMq.grantEnqueue(producer(stack)),
    );
    expect(new Set(routeAuthorizations(template))).toEqual(new Set(['AWS_IAM null']));
    expect(producerPolicies(template)).toContain('execute-api:Invoke');
  });

  it('on an imported API, are refused at synth without http.authorizer, naming what to pass', () => {
    const imported = (stack: Parameters<Parameters<typeof composeEchoMq>[0]>[0]) =>
      apigwv2.HttpApi.fromHttpApiAttributes(stack, 'Api', { httpApiId: 'a1b2c3' });
    expect(() =>
      composeEchoMq((stack) => ({ cache: cache(), http: { api: imported(stack) } })),
    ).toThrow(
      /http\.api is imported \(HttpApi\.fromHttpApiAttributes\).*http\.authorizer, such as new HttpIamAuthorizer\(\)/,
    );
    const { template } = composeEchoMq(
      (stack) => ({
        cache: cache(),
        http: { api: imported(stack), authorizer: new HttpIamAuthorizer() },
      }),
      (echoMq, stack) => echoMq.grantEnqueue(producer(stack)),
    );
    expect(new Set(routeAuthorizations(template))).toEqual(new Set(['AWS_IAM null']));
    expect(producerPolicies(template)).toContain('execute-api:Invoke');
  });
});

describe("methods on the team's REST API", () => {
  it("keep the resource's default authorizer, and use IAM where it has none", () => {
    const { template } = composeEchoMq((stack) => {
      const restApi = new apigw.RestApi(stack, 'TeamRest', { cloudWatchRole: false });
      const authorizer = new apigw.TokenAuthorizer(stack, 'TeamAuthorizer', {
        handler: new lambda.Function(stack, 'AuthorizerFn', {
          runtime: lambda.Runtime.NODEJS_22_X,
          handler: 'index.handler',
          code: lambda.Code.fromInline('exports.handler = async () => ({})'),
        }),
      });
      const resource = restApi.root.addResource('emq', {
        defaultMethodOptions: { authorizer, authorizationType: apigw.AuthorizationType.CUSTOM },
      });
      return { cache: cache(), http: { restApi, resource } };
    });
    const methods = Object.values(resourcesOf(template, 'AWS::ApiGateway::Method'));
    expect(methods).toHaveLength(OPERATIONS.length);
    for (const method of methods) expect(method.Properties.AuthorizationType).toBe('CUSTOM');
  });
});

describe("the team's queue", () => {
  it('is refused at synth when a redelivery outlasts the duplicate window, naming both figures', () => {
    expect(() =>
      composeEchoMq((stack) => {
        const deadLetterQueue = new sqs.Queue(stack, 'TeamDlq', { enforceSSL: true });
        return {
          cache: cache(),
          sqs: {
            queue: new sqs.Queue(stack, 'TeamQueue', {
              enforceSSL: true,
              visibilityTimeout: Duration.hours(12),
              deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: 10 },
            }),
            deadLetterQueue,
          },
        };
      }),
    ).toThrow(
      'dedupeTtlMs (EMQ_DEDUPE_TTL_MS, 3600000) must be at least the span over which queue UserStack/TeamQueue can deliver one message again, its retention (345600 s) × 1000 + 300000 = 345900000',
    );
  });

  it('is held to visibility timeout × maxReceiveCount where that ends before its retention', () => {
    expect(() =>
      composeEchoMq((stack) => ({
        cache: cache(),
        sqs: {
          queue: new sqs.Queue(stack, 'TeamQueue', {
            enforceSSL: true,
            visibilityTimeout: Duration.minutes(20),
            deadLetterQueue: {
              queue: new sqs.Queue(stack, 'TeamDlq', { enforceSSL: true }),
              maxReceiveCount: 3,
            },
          }),
        },
      })),
    ).toThrow(
      /its visibility timeout \(1200\) × 1000 × its maxReceiveCount \(3\) \+ 300000 = 3900000/,
    );
  });

  it('passes with a window that outlasts it', () => {
    const { template } = composeEchoMq((stack) => ({
      cache: cache(),
      settings: { dedupeTtlMs: 3_900_000 },
      sqs: {
        queue: new sqs.Queue(stack, 'TeamQueue', {
          enforceSSL: true,
          visibilityTimeout: Duration.minutes(20),
          deadLetterQueue: {
            queue: new sqs.Queue(stack, 'TeamDlq', { enforceSSL: true }),
            maxReceiveCount: 3,
          },
        }),
      },
    }));
    expect(Object.keys(resourcesOf(template, 'AWS::Lambda::EventSourceMapping'))).toHaveLength(1);
  });

  it('needs sqs.redelivery when imported, and is checked against it', () => {
    const imported = (stack: Parameters<Parameters<typeof composeEchoMq>[0]>[0]) =>
      sqs.Queue.fromQueueArn(stack, 'Jobs', 'arn:aws:sqs:eu-west-1:123456789012:jobs');
    expect(() =>
      composeEchoMq((stack) => ({ cache: cache(), sqs: { queue: imported(stack) } })),
    ).toThrow(/queue UserStack\/Jobs is imported: give sqs.redelivery/);
    expect(() =>
      composeEchoMq((stack) => ({
        cache: cache(),
        sqs: {
          queue: imported(stack),
          redelivery: { visibilityTimeout: Duration.hours(12), maxReceiveCount: 10 },
        },
      })),
    ).toThrow(/dedupeTtlMs \(EMQ_DEDUPE_TTL_MS, 3600000\) must be at least/);
    expect(() =>
      composeEchoMq((stack) => ({
        cache: cache(),
        sqs: {
          queue: imported(stack),
          redelivery: { visibilityTimeout: Duration.minutes(3), maxReceiveCount: 5 },
        },
      })),
    ).not.toThrow();
  });
});

describe('override props', () => {
  it('merge functionProps, queueProps and deadLetterQueueProps over the defaults', () => {
    const { template } = composeEchoMq(() => ({
      cache: cache(),
      functionProps: { memorySize: 1024, environment: { TEAM_TAG: 'jobs' } },
      queueProps: { queueName: 'team-jobs', retentionPeriod: Duration.days(2) },
      deadLetterQueueProps: { queueName: 'team-jobs-dlq' },
    }));
    const functions = Object.values(projectFunctions(template)).filter(
      (fn) => !String(fn.Properties.Description).includes('installs the wire identity'),
    );
    expect(functions).toHaveLength(2);
    for (const fn of functions) {
      expect(fn.Properties.MemorySize).toBe(1024);
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> })
        .Variables;
      expect(variables).toMatchObject({ TEAM_TAG: 'jobs', EMQ_EXECUTOR: 'auto' });
    }
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'team-jobs',
      MessageRetentionPeriod: 172_800,
      VisibilityTimeout: 180,
      RedrivePolicy: { maxReceiveCount: 5 },
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'team-jobs-dlq',
      MessageRetentionPeriod: 1_209_600,
    });
  });

  it('hold a queue shaped by queueProps to the same duplicate window', () => {
    expect(() =>
      composeEchoMq(() => ({
        cache: cache(),
        queueProps: { visibilityTimeout: Duration.hours(12) },
      })),
    ).toThrow(
      'settings.dedupeTtlMs (EMQ_DEDUPE_TTL_MS, 3600000) must be at least the span over which the source queue can deliver one message again, queueProps.visibilityTimeout (43200) × 1000 × sqs.maxReceiveCount (5)',
    );
  });

  it('refuse queueProps beside the team queue', () => {
    expect(() =>
      composeEchoMq((stack) => ({
        cache: cache(),
        sqs: {
          queue: sqs.Queue.fromQueueArn(stack, 'Jobs', 'arn:aws:sqs:eu-west-1:123456789012:jobs'),
          redelivery: { visibilityTimeout: Duration.minutes(3) },
        },
        queueProps: { queueName: 'x' },
      })),
    ).toThrow(/queueProps shapes the queue the construct makes/);
  });
});
