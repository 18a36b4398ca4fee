// docs/deploy.md "Into an existing account", what synth accepts, deploys: a value that reaches
// Lambda or SQS through the override props or an imported queue's redelivery meets the same check
// as the construct's own prop, and every problem names the prop's path, never the app's context
// key.
import { Duration } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { EchoMqCache } from '../../infra/index.js';
import type { SettingValues } from '../../src/settings/settings-table.js';
import { composeEchoMq } from './support/construct.js';
import { resourcesOf } from './support/template.js';

const cache = () => EchoMqCache.existing({ endpoint: 'valkey.internal.example:6379' });
type Props = ReturnType<Parameters<typeof composeEchoMq>[0]>;

/** The problems the construct refuses `props` with, one per line. */
function refusal(props: Parameters<typeof composeEchoMq>[0]): string[] {
  try {
    composeEchoMq(props);
  } catch (error) {
    return String((error as Error).message)
      .split('\n')
      .slice(1)
      .map((line) => line.replace(/^ {2}- /, ''));
  }
  throw new Error('synthesized');
}

const withProps = (props: Omit<Props, 'cache'>) => () => ({ cache: cache(), ...props });

describe('function timeout against the visibility timeout of each queue', () => {
  it('refuses functionProps.timeout past the created queue, naming both props', () => {
    const problems = refusal(withProps({ functionProps: { timeout: Duration.seconds(900) } }));
    expect(problems).toContain('functionProps.timeout must be a whole number from 1 to 29.');
    expect(problems).toContainEqual(
      expect.stringMatching(
        /^sqs\.visibilityTimeoutSeconds \(180 s\) of the source queue must be at least 6 × the SQS function's timeout, functionProps\.timeout \(900 s\) = 5400 s/,
      ),
    );
  });

  it('refuses queueProps.visibilityTimeout under 6 × the function timeout', () => {
    expect(refusal(withProps({ queueProps: { visibilityTimeout: Duration.seconds(30) } }))).toEqual(
      [
        expect.stringMatching(
          /^queueProps\.visibilityTimeout \(30 s\) of the source queue must be at least 6 × the SQS function's timeout, sqs\.timeoutSeconds \(30 s\) = 180 s/,
        ),
      ],
    );
  });

  it("refuses the team's queue whose sqs.redelivery.visibilityTimeout is under the function's timeout (Lambda's floor)", () => {
    const problems = refusal((stack) => ({
      cache: cache(),
      sqs: {
        queue: sqs.Queue.fromQueueArn(stack, 'Jobs', 'arn:aws:sqs:eu-west-1:123456789012:jobs'),
        redelivery: { visibilityTimeout: Duration.seconds(10), maxReceiveCount: 5 },
      },
    }));
    expect(problems).toEqual([
      expect.stringMatching(
        /^sqs\.redelivery\.visibilityTimeout \(10 s\) of queue UserStack\/Jobs must be at least the SQS function's timeout, sqs\.timeoutSeconds \(30 s\).*Lambda refuses the event source/,
      ),
    ]);
  });

  it('synthesizes an override the queue allows, with the override on both functions', () => {
    const { template } = composeEchoMq(
      withProps({
        functionProps: { timeout: Duration.seconds(20) },
        queueProps: { visibilityTimeout: Duration.seconds(120) },
      }),
    );
    template.hasResourceProperties('AWS::SQS::Queue', { VisibilityTimeout: 120 });
    const timeouts = Object.values(resourcesOf(template, 'AWS::Lambda::Function')).map(
      (fn) => fn.Properties.Timeout,
    );
    expect(timeouts.filter((timeout) => timeout === 20)).toHaveLength(2);
  });
});

describe('the runtime, concurrency and logs of the override props', () => {
  it('refuses a runtime the bundles do not run on, and takes a Node.js 22 or later', () => {
    expect(refusal(withProps({ functionProps: { runtime: lambda.Runtime.PYTHON_3_12 } }))).toEqual([
      expect.stringMatching(
        /^functionProps\.runtime is python3\.12: the bundles are ES modules for Node\.js 22 or later/,
      ),
    ]);
    expect(
      refusal(withProps({ functionProps: { runtime: lambda.Runtime.NODEJS_20_X } })),
    ).toHaveLength(1);
    const { template } = composeEchoMq(
      withProps({ functionProps: { runtime: lambda.Runtime.NODEJS_24_X } }),
    );
    template.hasResourceProperties('AWS::Lambda::Function', { Runtime: 'nodejs24.x' });
  });

  it('refuses reserved concurrency under the event source maximum concurrency (AWS: reserved >= maximum)', () => {
    expect(
      refusal(
        withProps({
          functionProps: { reservedConcurrentExecutions: 2 },
          sqs: { maxConcurrency: 10 },
        }),
      ),
    ).toEqual([
      expect.stringMatching(
        /^functionProps\.reservedConcurrentExecutions \(2\) must be at least sqs\.maxConcurrency \(10\)/,
      ),
    ]);
    expect(() =>
      composeEchoMq(withProps({ functionProps: { reservedConcurrentExecutions: 10 } })),
    ).not.toThrow();
  });

  it("refuses functionProps.logRetention, naming the construct's own prop", () => {
    expect(
      refusal(withProps({ functionProps: { logRetention: logs.RetentionDays.ONE_WEEK } })),
    ).toEqual([
      expect.stringMatching(
        /^functionProps\.logRetention is the construct's to set: use options\.logRetentionDays/,
      ),
    ]);
  });
});

describe('problems name the prop path', () => {
  it('refuses an unknown settings key, naming settings.<key> and the closest setting', () => {
    expect(refusal(withProps({ settings: { dedupeTtl: 1 } as SettingValues }))).toEqual([
      expect.stringMatching(
        /^settings\.dedupeTtl is not a setting: did you mean settings\.dedupeTtlMs\?/,
      ),
    ]);
  });

  it("names the cache factory's option and the http.auth field, not the app's context keys", () => {
    const problems = refusal(() => ({
      cache: EchoMqCache.memoryDb({ shards: 0 }),
      http: { auth: { kind: 'jwt', issuer: 'http://insecure', audience: ['a'] } },
    }));
    expect(problems).toContain(
      'EchoMqCache.memoryDb({ shards }) must be a whole number from 1 to 500.',
    );
    expect(problems).toContain('http.auth.issuer must be an https URL.');
    expect(problems.join('\n')).not.toMatch(/memoryDbShards|jwtIssuer/);
  });
});

describe('a face left out', () => {
  it('holds functionProps.timeout to no HTTP limit where there is no HTTP face', () => {
    expect(() =>
      composeEchoMq(
        withProps({
          http: false,
          functionProps: { timeout: Duration.seconds(60) },
          sqs: { visibilityTimeoutSeconds: 360 },
        }),
      ),
    ).not.toThrow();
  });
});
