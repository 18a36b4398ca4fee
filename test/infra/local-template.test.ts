// What the local stack (`npm start`) takes from the synthesized stack (scripts/local/
// template.ts): the routes API Gateway deploys, each function's environment without the
// target's variables (where Valkey is, its credentials, its family of calls), the SQS event
// source's settings; found by resource type and the references between resources, and refused
// by name where a value exists only at deploy time.
import { describe, expect, it } from 'vitest';
import {
  deployedSettings,
  routed,
  TARGET_VARIABLES,
  TemplateError,
} from '../../scripts/local/template.js';
import { synthStack } from './support/synth.js';
import { resourcesOf } from './support/template.js';

describe('the default stack', () => {
  const { template } = synthStack();
  const settings = deployedSettings(template.toJSON());

  it('routes exactly the route keys the HTTP API deploys', () => {
    const keys = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Route')).map(
      (route) => route.Properties.RouteKey,
    );
    expect(settings.routes.map(({ method, path }) => `${method} ${path}`).sort()).toEqual(
      [...keys].sort(),
    );
  });

  it("gives each function the stack's literal settings and none of its target's", () => {
    expect(settings.httpEnv).toMatchObject({ EMQ_WIRE: '1', EMQ_ACK_REPLICAS: '0' });
    expect(settings.sqs?.env).toMatchObject({ EMQ_DEFAULT_QUEUE: 'default' });
    for (const env of [settings.httpEnv, settings.sqs?.env ?? {}]) {
      expect(Object.keys(env).filter((name) => TARGET_VARIABLES.has(name))).toEqual([]);
    }
    // The SQS function's own setting is not the HTTP function's.
    expect(settings.httpEnv.EMQ_DEFAULT_QUEUE).toBeUndefined();
  });

  it("reads the event source mapping's batch size, window and ReportBatchItemFailures", () => {
    const [mapping] = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping'));
    expect(settings.sqs?.eventSource).toEqual({
      batchSize: mapping?.Properties.BatchSize,
      batchingWindowSeconds: mapping?.Properties.MaximumBatchingWindowInSeconds ?? 0,
      reportBatchItemFailures: true,
    });
  });
});

describe('a stack with other SQS settings', () => {
  it('carries them to the local poller', () => {
    const { template } = synthStack({ sqs: { batchSize: 500, maxBatchingWindowSeconds: 3 } });
    expect(deployedSettings(template.toJSON()).sqs?.eventSource).toEqual({
      batchSize: 500,
      batchingWindowSeconds: 3,
      reportBatchItemFailures: true,
    });
  });
});

/** A template of one HTTP function behind `keys`, with `variables`, in CloudFormation's form. */
function handMade(keys: readonly string[], variables: Record<string, unknown>): unknown {
  const resources: Record<string, unknown> = {
    Fn: { Type: 'AWS::Lambda::Function', Properties: { Environment: { Variables: variables } } },
    Integration: {
      Type: 'AWS::ApiGatewayV2::Integration',
      Properties: { IntegrationUri: { 'Fn::GetAtt': ['Fn', 'Arn'] } },
    },
  };
  keys.forEach((key, index) => {
    resources[`Route${index}`] = {
      Type: 'AWS::ApiGatewayV2::Route',
      Properties: {
        RouteKey: key,
        Target: { 'Fn::Join': ['', ['integrations/', { Ref: 'Integration' }]] },
      },
    };
  });
  return { Resources: resources };
}

describe('deployedSettings', () => {
  it('refuses a variable computed at deploy time that is not a connection variable, by name', () => {
    const template = handMade(['GET /x'], {
      EMQ_URL: { 'Fn::GetAtt': ['Cache', 'Endpoint'] },
      EMQ_DEFAULT_QUEUE: { Ref: 'QueueName' },
    });
    expect(() => deployedSettings(template)).toThrow(TemplateError);
    expect(() => deployedSettings(template)).toThrow(
      /EMQ_DEFAULT_QUEUE from a value known only at deploy time/,
    );
  });

  it('refuses a stack without HTTP API routes', () => {
    expect(() => deployedSettings(handMade([], {}))).toThrow(/no HTTP API routes/);
  });

  it('has no SQS face where the stack has no event source mapping', () => {
    expect(deployedSettings(handMade(['GET /x'], { EMQ_WIRE: '1' }))).toEqual({
      routes: [{ method: 'GET', path: '/x' }],
      httpEnv: { EMQ_WIRE: '1' },
      sqs: undefined,
    });
  });
});

describe('routed', () => {
  const routes = deployedSettings(
    handMade(
      ['POST /queues/{queue}/jobs', 'GET /queues/{queue}/jobs/{id}', 'ANY /files/{path+}'],
      {},
    ),
  ).routes;

  it.each([
    ['POST', '/queues/q/jobs', true],
    ['GET', '/queues/q/jobs/JOB1', true],
    ['HEAD', '/queues/q/jobs/JOB1', false],
    ['PUT', '/queues/q/jobs/JOB1', false],
    ['POST', '/queues/q/jobs/batch', false],
    ['POST', '/queues//jobs', false],
    ['GET', '/queues/q/jobs/JOB1/more', false],
    ['DELETE', '/files/a/b/c', true],
    ['GET', '/files', false],
  ])('%s %s: %s', (method, path, expected) => {
    expect(routed(routes, method, path)).toBe(expected);
  });

  it('routes everything to a $default route', () => {
    expect(routed([{ method: 'ANY', path: '$default' }], 'HEAD', '/anything')).toBe(true);
  });
});
