// cache=selfmanaged from context to synthesis: its context keys and defaults, every problem
// at once, where nodes go, the module's CPU, and `cdk synth` without AWS credentials.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EchoMqAppStack } from '../../infra/app/app-stack.js';
import { createEchoMqApp } from '../../infra/app/echomq-app.js';
import { DEFAULT_ACCESS_STRING } from '../../infra/cache/elasticache/spec.js';
import { SELFMANAGED_ACCESS_STRING } from '../../infra/cache/selfmanaged/kind.js';
import { placeNodes } from '../../infra/cache/selfmanaged/layout.js';
import {
  instanceArchitecture,
  moduleArchitecture,
} from '../../infra/cache/selfmanaged/module-artifact.js';
import { deploymentFromContext } from '../../infra/deployment/context.js';
import { resolveDeployment } from '../../infra/deployment/deployment.js';
import { FUNCTIONS_RULES_NATIVE } from '../../src/families/access-rules.js';
import { MODULE_PATH } from '../support/servers.js';
import { standInBundles, synthStack, TEST_ENV, temporaryDir } from './support/synth.js';
import { resourcesOf } from './support/template.js';

/** A file that starts like a 64-bit little-endian ELF for `machine` (0xb7 arm64, 0x3e x86_64). */
function elfStandIn(machine: number): string {
  const header = Buffer.alloc(64);
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]).copy(header);
  header.writeUInt16LE(3, 16);
  header.writeUInt16LE(machine, 18);
  const path = join(temporaryDir('emq-module-'), 'emq.so');
  writeFileSync(path, header);
  return path;
}

const context = (values: Record<string, string>) => (key: string) => values[key];

describe('context', () => {
  it('reads the self-managed keys into the deployment', () => {
    const { deployment, problems } = deploymentFromContext(
      context({
        cache: 'selfmanaged',
        moduleArtifact: MODULE_PATH,
        selfManagedShards: '3',
        selfManagedReplicas: '2',
        instanceType: 'm7g.large',
        dataVolumeGiB: '50',
        replacedNodes: '4, 1,4',
      }),
    );
    expect(problems).toEqual([]);
    expect(deployment.cache).toEqual({
      kind: 'selfmanaged',
      moduleArtifact: MODULE_PATH,
      shards: 3,
      replicasPerShard: 2,
      instanceType: 'm7g.large',
      dataVolumeGiB: 50,
      replacedNodes: [4, 1, 4],
    });
  });

  it("refuses another cache kind's keys with cache=selfmanaged, and its own keys elsewhere", () => {
    expect(
      deploymentFromContext(
        context({ cache: 'selfmanaged', moduleArtifact: MODULE_PATH, shards: '3' }),
      ).problems,
    ).toEqual(['shards applies only to cache=elasticache.']);
    expect(deploymentFromContext(context({ moduleArtifact: MODULE_PATH })).problems).toEqual([
      'moduleArtifact applies only to cache=selfmanaged.',
    ]);
  });
});

describe('resolveDeployment for cache=selfmanaged', () => {
  it('fills the documented defaults', () => {
    const { deployment, problems } = resolveDeployment({
      cache: { kind: 'selfmanaged', moduleArtifact: MODULE_PATH },
      settings: { wire: '7' },
    });
    expect(problems).toEqual([]);
    expect(deployment.cache).toEqual({
      kind: 'selfmanaged',
      moduleArtifact: MODULE_PATH,
      shards: 3,
      replicasPerShard: 1,
      instanceType: 't4g.small',
      port: 6379,
      accessString: SELFMANAGED_ACCESS_STRING,
      dataVolumeGiB: 20,
      replacedNodes: [],
    });
    // The native family: the module's commands, and none of the function family's inner ones.
    expect(SELFMANAGED_ACCESS_STRING).toBe(FUNCTIONS_RULES_NATIVE);
    expect(SELFMANAGED_ACCESS_STRING).not.toBe(DEFAULT_ACCESS_STRING);
  });

  it('reports every problem at once', () => {
    const { problems } = resolveDeployment({
      cache: {
        kind: 'selfmanaged',
        moduleArtifact: '/nowhere/emq.so',
        shards: 0,
        replicasPerShard: 6,
        instanceType: 'large',
        port: 60_000,
        accessString: "on ~emq:* +@all '",
        dataVolumeGiB: 0,
        replacedNodes: [0, 9],
      },
    });
    expect(problems).toEqual([
      // instanceType 'large' names no Graviton type: the x86_64 build is the one to make.
      'moduleArtifact /nowhere/emq.so does not exist (make -C module host builds module/build/emq.so).',
      'selfManagedShards must be a whole number from 1 to 30.',
      'selfManagedReplicas must be a whole number from 0 to 5.',
      'instanceType must look like t4g.small.',
      'port must be a whole number from 1024 to 55535.',
      "accessString must start with 'on' and hold no quote.",
      'dataVolumeGiB must be a whole number from 1 to 16384.',
    ]);
  });

  it('refuses a replaced node the cluster does not have', () => {
    const cache = { kind: 'selfmanaged', moduleArtifact: MODULE_PATH, shards: 3 } as const;
    expect(resolveDeployment({ cache: { ...cache, replacedNodes: [6] } }).problems).toEqual([
      'replacedNodes must name node indexes from 0 to 5.',
    ]);
  });

  it('refuses replicas on fewer than 3 shards, where no majority could promote one', () => {
    const cache = { kind: 'selfmanaged', moduleArtifact: MODULE_PATH } as const;
    expect(resolveDeployment({ cache: { ...cache, shards: 2 } }).problems).toEqual([
      'selfManagedShards must be at least 3 with replicas (got 2): a replica is promoted by a majority of the primaries, which 2 shards cannot give once one is lost. Use 3 or more shards, or selfManagedReplicas=0 for a cluster without failover.',
    ]);
    expect(
      resolveDeployment({ cache: { ...cache, shards: 1, replicasPerShard: 0 } }).problems,
    ).toEqual([]);
    expect(resolveDeployment({ cache: { ...cache, shards: 3 } }).problems).toEqual([]);
  });
});

describe('placeNodes', () => {
  const subnets = ['10.40.2.0/24', '10.40.3.0/24', '10.40.4.0/24'];

  it('puts one primary in each AZ when there are as many AZs as shards', () => {
    const primaries = placeNodes(3, 1, subnets).filter((node) => node.replica === 0);
    expect(primaries.map((node) => node.subnet)).toEqual([0, 1, 2]);
  });

  it("never puts a shard's nodes in one AZ while there are AZs enough", () => {
    const nodes = placeNodes(3, 2, subnets);
    for (const shard of [0, 1, 2]) {
      const zones = nodes.filter((node) => node.shard === shard).map((node) => node.subnet);
      expect(new Set(zones).size).toBe(3);
    }
  });

  it('gives every node its own address from the tenth host of its subnet on', () => {
    expect(placeNodes(2, 1, subnets).map((node) => node.address)).toEqual([
      '10.40.2.10',
      '10.40.3.11',
      '10.40.3.12',
      '10.40.4.13',
    ]);
  });

  it('refuses a subnet too small or a CIDR unknown at synthesis', () => {
    expect(() => placeNodes(3, 1, ['10.40.2.0/28'])).toThrow(/too small/);
    expect(() => placeNodes(3, 1, ['#{Token[TOKEN.1]}'])).toThrow(/not an IPv4 CIDR/);
  });
});

describe('an existing VPC', () => {
  it('must tell the CIDR blocks of its isolated subnets, or no node address can be fixed', () => {
    const elsewhere = new Stack(new App(), 'Network', { env: TEST_ENV });
    const vpc = ec2.Vpc.fromVpcAttributes(elsewhere, 'Vpc', {
      vpcId: 'vpc-0123456789abcdef0',
      availabilityZones: ['eu-west-1a', 'eu-west-1b'],
      isolatedSubnetIds: ['subnet-0aaaaaaaaaaaaaaa0', 'subnet-0bbbbbbbbbbbbbbb0'],
    });
    expect(() =>
      synthStack({ cache: { kind: 'selfmanaged', moduleArtifact: MODULE_PATH } }, { vpc }),
    ).toThrow(/CIDR block of subnet .* must be known at synthesis/);
  });
});

describe('CPU of the module and of the nodes', () => {
  it('reads the ELF machine of the module', () => {
    expect(moduleArchitecture(elfStandIn(0xb7))).toBe('arm64');
    expect(moduleArchitecture(elfStandIn(0x3e))).toBe('x86_64');
    const text = join(temporaryDir('emq-module-'), 'emq.so');
    writeFileSync(text, 'not a shared object at all');
    expect(moduleArchitecture(text)).toBeUndefined();
  });

  it('knows Graviton instance types', () => {
    for (const type of ['t4g.small', 'm7g.large', 'r8gd.xlarge', 'c7gn.medium', 'im4gn.large']) {
      expect(instanceArchitecture(type)).toBe('arm64');
    }
    for (const type of ['t3.small', 'm7i.large', 'c6a.large', 'g4dn.xlarge', 'x2idn.large']) {
      expect(instanceArchitecture(type)).toBe('x86_64');
    }
  });
});

describe('cdk synth with -c cache=selfmanaged', () => {
  let stack: EchoMqAppStack;
  let template: Template;

  beforeAll(() => {
    const saved = { ...process.env };
    delete process.env.CDK_DEFAULT_ACCOUNT;
    delete process.env.CDK_DEFAULT_REGION;
    try {
      const { app, stack: created } = createEchoMqApp({
        outdir: temporaryDir('emq-cdk-out-'),
        context: {
          bundleDir: standInBundles(),
          stackName: 'EmqSelfManaged',
          cache: 'selfmanaged',
          moduleArtifact: elfStandIn(0x3e),
          replacedNodes: '2',
        },
      });
      stack = created;
      const assembly = app.synth();
      template = Template.fromJSON(assembly.getStackByName('EmqSelfManaged').template);
    } finally {
      process.env = saved;
    }
  });

  it('synthesizes an environment-agnostic stack without credentials, AwsSolutions checks included', () => {
    expect(stack.resolve(stack.account)).toEqual({ Ref: 'AWS::AccountId' });
    expect(Object.keys(resourcesOf(template, 'AWS::EC2::Instance'))).toHaveLength(6);
  });

  it('launches a replaced node under a new logical id and leaves the others alone', () => {
    const ids = Object.keys(resourcesOf(template, 'AWS::EC2::Instance'));
    expect(ids.filter((id) => id.includes('Gen1'))).toEqual([
      expect.stringMatching(/^CacheNode2InstanceGen1/),
    ]);
    expect(ids.filter((id) => /^CacheNode[013-5]Instance[0-9A-F]{8}$/.test(id))).toHaveLength(5);
  });

  it('warns that a module built for x86_64 will not load on Graviton nodes', () => {
    Annotations.fromStack(stack).hasWarning(
      '/EmqSelfManaged/Default/Cache',
      Match.stringLikeRegexp('moduleArtifact is built for x86_64 but t4g.small runs arm64'),
    );
  });
});
