// docs/deploy.md "Tearing down", a stack that deletes cleanly: in every variant (each cache kind ×
// each removal choice × the HTTP and SQS shapes), no resource reachable from a kept one
// (`DeletionPolicy: Retain`) by Ref, Fn::GetAtt, Fn::Sub or DependsOn is deleted with the stack.
import { RemovalPolicy } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import type { CacheSpec } from '../../infra/cache/modules.js';
import { EchoMqCache, type EchoMqProps } from '../../infra/index.js';
import { MODULE_PATH } from '../support/servers.js';
import { composeEchoMq } from './support/construct.js';
import { synthStack } from './support/synth.js';

interface TemplateResource {
  readonly Type: string;
  readonly DeletionPolicy?: string;
  readonly DependsOn?: string | string[];
  readonly Properties?: unknown;
}

/** Every logical id a value names by Ref, Fn::GetAtt, `${Id}` of Fn::Sub. */
function idsIn(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) idsIn(item, into);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'Ref' && typeof inner === 'string') into.add(inner);
    if (key === 'Fn::GetAtt' && Array.isArray(inner)) into.add(String(inner[0]));
    if (key === 'Fn::Sub') {
      const text = Array.isArray(inner) ? inner[0] : inner;
      for (const match of String(text).matchAll(/\$\{([A-Za-z0-9]+)/g)) into.add(String(match[1]));
    }
    idsIn(inner, into);
  }
}

/** `kept -> ... -> deleted` for every deleted resource a kept one reaches; empty when clean. */
function deletedUnderKept(template: { toJSON(): Record<string, unknown> }): string[] {
  const resources = (template.toJSON().Resources ?? {}) as Record<string, TemplateResource>;
  const problems: string[] = [];
  for (const [start, resource] of Object.entries(resources)) {
    if (resource.DeletionPolicy !== 'Retain') continue;
    const paths = new Map<string, string[]>([[start, [start]]]);
    const pending = [start];
    for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
      const current = resources[id];
      const next = new Set<string>([current?.DependsOn ?? []].flat());
      idsIn(current?.Properties, next);
      for (const target of next) {
        if (resources[target] === undefined || paths.has(target)) continue;
        const path = [...(paths.get(id) ?? []), target];
        paths.set(target, path);
        pending.push(target);
        if (resources[target]?.DeletionPolicy !== 'Retain') {
          problems.push(`${path.join(' -> ')} (${resources[target]?.Type}, deleted)`);
        }
      }
    }
  }
  return problems;
}

const KINDS: Record<string, () => EchoMqCache> = {
  elasticache: () => EchoMqCache.elastiCache(),
  serverless: () => EchoMqCache.serverless(),
  existing: () => EchoMqCache.existing({ endpoint: 'valkey.internal.example:6379' }),
  selfmanaged: () => EchoMqCache.selfManaged({ moduleArtifact: MODULE_PATH }),
  memorydb: () => EchoMqCache.memoryDb(),
};
const REMOVALS: Record<string, RemovalPolicy | undefined> = {
  default: undefined,
  RETAIN: RemovalPolicy.RETAIN,
  SNAPSHOT: RemovalPolicy.SNAPSHOT,
  DESTROY: RemovalPolicy.DESTROY,
};

describe('a construct in a stack of the team', () => {
  for (const [kind, cache] of Object.entries(KINDS)) {
    for (const [removal, removalPolicy] of Object.entries(REMOVALS)) {
      it(`${kind}, removalPolicy ${removal}, logs kept`, () => {
        const { template } = composeEchoMq(() => ({
          cache: cache(),
          removalPolicy,
          options: { keepLogsOnDelete: true },
        }));
        expect(deletedUnderKept(template)).toEqual([]);
      });
    }
  }

  const shapes: Record<
    string,
    (stack: Parameters<Parameters<typeof composeEchoMq>[0]>[0]) => Partial<EchoMqProps>
  > = {
    "the team's HTTP API, queue and DLQ": (stack) => {
      const deadLetterQueue = new sqs.Queue(stack, 'TeamDlq', { enforceSSL: true });
      return {
        http: { api: new apigwv2.HttpApi(stack, 'TeamApi') },
        sqs: {
          queue: new sqs.Queue(stack, 'TeamQueue', {
            enforceSSL: true,
            deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: 5 },
          }),
          deadLetterQueue,
        },
      };
    },
    "the team's REST API": (stack) => {
      // No CloudWatch role: CDK keeps that account-wide setting, which is the team's to choose.
      const restApi = new apigw.RestApi(stack, 'TeamRest', { cloudWatchRole: false });
      restApi.root.addMethod('OPTIONS');
      return { http: { restApi } };
    },
    'a Function URL': () => ({ http: { functionUrl: true } }),
    'no HTTP face, no SQS face': () => ({ http: false, sqs: false }),
  };
  for (const [shape, props] of Object.entries(shapes)) {
    it(`serverless, removalPolicy RETAIN, ${shape}`, () => {
      const { template } = composeEchoMq((stack) => ({
        cache: EchoMqCache.serverless(),
        removalPolicy: RemovalPolicy.RETAIN,
        ...props(stack),
      }));
      expect(deletedUnderKept(template)).toEqual([]);
    });
  }
});

describe("the repository's app (its own VPC)", () => {
  const caches: Record<string, CacheSpec> = {
    elasticache: { kind: 'elasticache' },
    serverless: { kind: 'serverless' },
    'serverless, IAM auth': { kind: 'serverless', cacheAuth: 'iam' },
    existing: { kind: 'existing', urls: ['valkey.internal.example:6379'] },
    selfmanaged: { kind: 'selfmanaged', moduleArtifact: MODULE_PATH },
  };
  for (const [name, cache] of Object.entries(caches)) {
    it(`${name}, logs kept`, () => {
      const { template } = synthStack({ cache, keepLogsOnDelete: true });
      expect(deletedUnderKept(template)).toEqual([]);
    });
  }
});

describe('the walk itself', () => {
  it('finds a kept cache whose security group, users and subnets would be deleted', () => {
    // What the Serverless stack was before: a kept cache, nothing it needs kept.
    const { template } = composeEchoMq(() => ({ cache: EchoMqCache.serverless() }));
    const json = template.toJSON() as {
      Resources: Record<string, { Type: string; DeletionPolicy?: string }>;
    };
    for (const resource of Object.values(json.Resources)) {
      if (resource.Type === 'AWS::ElastiCache::ServerlessCache') resource.DeletionPolicy = 'Retain';
    }
    const problems = deletedUnderKept({ toJSON: () => json });
    for (const type of [
      'AWS::EC2::SecurityGroup',
      'AWS::ElastiCache::UserGroup',
      'AWS::ElastiCache::User',
      'AWS::SecretsManager::Secret',
      'AWS::EC2::Subnet',
      'AWS::EC2::VPC',
    ]) {
      expect(
        problems.some((problem) => problem.includes(`(${type}, deleted)`)),
        type,
      ).toBe(true);
    }
  });
});
