// The CDK app as `cdk synth` runs it: settings from context, cdk-nag as a synthesis plugin.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { afterEach, describe, expect, it } from 'vitest';
import { createEchoMqApp } from '../../infra/app/echomq-app.js';
import { synthSummary } from '../../infra/app/synth-summary.js';
import { InvalidDeploymentError } from '../../infra/deployment/deployment.js';
import { standInBundles, temporaryDir } from './support/synth.js';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe('createEchoMqApp', () => {
  it('synthesizes an environment-agnostic stack, AwsSolutions and Serverless checks included, without credentials', () => {
    delete process.env.CDK_DEFAULT_ACCOUNT;
    delete process.env.CDK_DEFAULT_REGION;
    const outdir = temporaryDir('emq-cdk-out-');
    const { app, stack } = createEchoMqApp({
      outdir,
      context: { bundleDir: standInBundles(), stackName: 'EmqCi' },
    });
    const assembly = app.synth();
    expect(stack.stackName).toBe('EmqCi');
    expect(assembly.getStackByName('EmqCi').environment).toMatchObject({
      account: 'unknown-account',
      region: 'unknown-region',
    });
    expect(existsSync(join(outdir, 'EmqCi.template.json'))).toBe(true);
    const summary = synthSummary(assembly, stack).split('\n');
    expect(summary[0]).toBe(
      'echomq-lambda: synthesized stack EmqCi (cache=elasticache, cacheAuth=password, durability=sync, family function, runtime nodejs22.x, auth=iam)',
    );
    expect(summary[1]).toMatch(/^ {2}template: .*EmqCi\.template\.json$/);
    // The three stand-in bundles are one file, so CDK stages them as one asset.
    expect(summary.slice(2)).toEqual([
      '  assets (3):',
      expect.stringMatching(
        /^ {4}Default\/Functions\/Http\/Function\/Code: .*asset\.[0-9a-f]{64}$/,
      ),
      expect.stringMatching(/^ {4}Default\/Fence\/Provider\/framework-onEvent\/Code: /),
      expect.stringMatching(/^ {4}EmqCi Template: .*EmqCi\.template\.json$/),
    ]);
  });

  it('refuses a misspelt context key, naming the key it resembles, but not the toolkit keys', () => {
    expect(() =>
      createEchoMqApp({
        outdir: temporaryDir('emq-cdk-out-'),
        context: {
          bundleDir: standInBundles(),
          replicaPerShard: '2',
          '@aws-cdk/aws-lambda:recognizeLayerVersion': true,
        },
      }),
    ).toThrow(
      /^echomq-lambda: 1 problem in the props or context:\n {2}- unknown context key 'replicaPerShard': did you mean 'replicasPerShard'\?$/,
    );
  });

  it('stops synthesis on an AwsSolutions finding nobody acknowledged', () => {
    const { app, stack } = createEchoMqApp({
      outdir: temporaryDir('emq-cdk-out-'),
      context: { bundleDir: standInBundles() },
    });
    const open = new ec2.SecurityGroup(stack, 'OpenToTheWorld', { vpc: stack.echoMq.network.vpc });
    open.addIngressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(22));
    expect(() => app.synth()).toThrow(/AwsSolutions-EC23/);
  });

  it('reports problems of context, settings and bundles in one error', () => {
    const failure = (() => {
      try {
        createEchoMqApp({
          outdir: temporaryDir('emq-cdk-out-'),
          context: {
            bundleDir: temporaryDir('emq-empty-'),
            cache: 'existing',
            shards: '3',
            defaultQueue: 'no spaces',
          },
        });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(failure).toBeInstanceOf(InvalidDeploymentError);
    expect((failure as InvalidDeploymentError).problems).toEqual([
      'shards applies only to cache=elasticache.',
      'cache=existing needs valkeyEndpoint (host:port or rediss://host:port).',
      'defaultQueue (EMQ_DEFAULT_QUEUE) is invalid: expected a queue name: 1 to 64 of A-Z a-z 0-9 . _ -.',
      expect.stringMatching(/the http bundle .* is missing: run npm run build first\./),
      expect.stringMatching(/the sqs bundle .* is missing: run npm run build first\./),
      expect.stringMatching(/the fence bundle .* is missing: run npm run build first\./),
      expect.stringMatching(/the rotate bundle .* is missing: run npm run build first\./),
    ]);
  });
});
