// Every operation of openapi/openapi.yaml, routed on every API kind the construct offers, read
// from the synthesized template; the HTTP face's route table and the generated module agree.
import { readFileSync } from 'node:fs';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { beforeAll, describe, expect, it } from 'vitest';
import { matchRoute } from '../../functions/http/routes.js';
import { EchoMqCache } from '../../infra/index.js';
import { OPERATIONS } from '../../openapi/operations.js';
import { DOCUMENT, MODULE, operationsModule } from '../../scripts/openapi-operations.js';
import { type Composed, composeEchoMq } from './support/construct.js';
import { resourcesOf } from './support/template.js';

const ENDPOINT = 'emq.abc123.clustercfg.euw1.cache.amazonaws.com:6379';
const cache = () => EchoMqCache.existing({ endpoint: ENDPOINT });
const documented = OPERATIONS.map(({ method, path }) => `${method} ${path}`).sort();

describe('the operations module', () => {
  it('is what the generator makes of the OpenAPI document today', () => {
    expect(readFileSync(MODULE, 'utf8')).toBe(operationsModule(readFileSync(DOCUMENT, 'utf8')));
  });

  it('holds the routes of README.md "The HTTP face", HEAD and the batch included', () => {
    expect(documented).toEqual([
      'GET /queues/{queue}/jobs/{id}',
      'HEAD /queues/{queue}/jobs/{id}',
      'POST /queues/{queue}/jobs',
      'POST /queues/{queue}/jobs/batch',
      'PUT /queues/{queue}/jobs/{id}',
    ]);
  });
});

describe("the HTTP face's route table", () => {
  it('serves every operation of the document under its own route', () => {
    for (const { method, path } of OPERATIONS) {
      const segments = path
        .slice(1)
        .split('/')
        .map((segment) => (segment === '{id}' ? 'JOB0000000000A' : segment.replace(/[{}]/g, '')));
      const match = matchRoute(method, segments);
      expect(match, `${method} ${path}`).toMatchObject({
        kind: 'operation',
        operation: { method, path },
      });
    }
  });
});

/** The routes of an HTTP API in the template, as `METHOD /path`. */
function httpRoutes(composed: Composed, apiId?: string): string[] {
  return Object.values(resourcesOf(composed.template, 'AWS::ApiGatewayV2::Route'))
    .filter((route) => apiId === undefined || route.Properties.ApiId === apiId)
    .map((route) => String(route.Properties.RouteKey))
    .sort();
}

/** The methods of a REST API in the template, as `METHOD /path` below `base` (a resource id). */
function restRoutes(composed: Composed, isBase: (parent: unknown) => boolean): string[] {
  const resources = resourcesOf(composed.template, 'AWS::ApiGateway::Resource');
  const pathOf = (id: string): string | undefined => {
    const resource = resources[id];
    if (resource === undefined) return undefined;
    const parent = resource.Properties.ParentId;
    const part = String(resource.Properties.PathPart);
    if (isBase(parent)) return `/${part}`;
    const parentId = (parent as { Ref?: string }).Ref;
    const above = parentId === undefined ? undefined : pathOf(parentId);
    return above === undefined ? undefined : `${above}/${part}`;
  };
  return Object.values(resourcesOf(composed.template, 'AWS::ApiGateway::Method'))
    .map((method) => {
      const resource = (method.Properties.ResourceId as { Ref: string }).Ref;
      return `${String(method.Properties.HttpMethod)} ${pathOf(resource)} ${String(method.Properties.AuthorizationType)}`;
    })
    .sort();
}

describe('routes on every API kind, read from the synthesized template', () => {
  it('a new HTTP API (the default): every operation, IAM', () => {
    const composed = composeEchoMq(() => ({ cache: cache() }));
    expect(httpRoutes(composed)).toEqual(documented);
  });

  it("the user's HTTP API: every operation on it, and no API of the construct's own", () => {
    const composed = composeEchoMq((stack) => ({
      cache: cache(),
      http: {
        api: apigwv2.HttpApi.fromHttpApiAttributes(stack, 'Api', { httpApiId: 'a1b2c3' }),
        authorizer: new HttpIamAuthorizer(),
      },
    }));
    expect(httpRoutes(composed, 'a1b2c3')).toEqual(documented);
    composed.template.resourceCountIs('AWS::ApiGatewayV2::Api', 0);
  });

  let privateRest: Composed;
  beforeAll(() => {
    privateRest = composeEchoMq((stack, vpc) => {
      const endpoint = new ec2.InterfaceVpcEndpoint(stack, 'ApiEndpoint', {
        vpc,
        service: ec2.InterfaceVpcEndpointAwsService.APIGATEWAY,
      });
      // Private: reachable through the VPC's execute-api endpoint only.
      const restApi = new apigw.RestApi(stack, 'PrivateApi', {
        endpointConfiguration: { types: [apigw.EndpointType.PRIVATE], vpcEndpoints: [endpoint] },
      });
      return { cache: cache(), http: { restApi, resource: restApi.root.addResource('emq') } };
    });
  });

  it("a resource of the user's private REST API: every operation under it, IAM", () => {
    const [emq] = Object.entries(
      resourcesOf(privateRest.template, 'AWS::ApiGateway::Resource'),
    ).find(([, resource]) => resource.Properties.PathPart === 'emq') ?? [''];
    const underEmq = restRoutes(privateRest, (parent) => (parent as { Ref?: string }).Ref === emq);
    expect(underEmq).toEqual(documented.map((route) => `${route} AWS_IAM`));
  });

  it('the root of an imported REST API: every operation on it', () => {
    const composed = composeEchoMq((stack) => ({
      cache: cache(),
      http: {
        restApi: apigw.RestApi.fromRestApiAttributes(stack, 'Rest', {
          restApiId: 'r1s2t3',
          rootResourceId: 'root123',
        }),
      },
    }));
    expect(restRoutes(composed, (parent) => parent === 'root123')).toEqual(
      documented.map((route) => `${route} AWS_IAM`),
    );
  });

  it('a Function URL: one URL with IAM auth serves every route (the table above), no API', () => {
    const composed = composeEchoMq(() => ({ cache: cache(), http: { functionUrl: true } }));
    composed.template.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'AWS_IAM' });
    composed.template.resourceCountIs('AWS::ApiGatewayV2::Route', 0);
    composed.template.resourceCountIs('AWS::ApiGateway::Method', 0);
  });
});
