// The stack on the self-managed Valkey cluster (cache=selfmanaged), synthesized once with the
// defaults (3 shards × 1 replica, t4g.small, two AZs) and checked where it differs from
// ElastiCache: the nodes, their network, their disks, what their user data carries, the
// cluster-create step, and the functions' environment.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CLUSTER_CREATE_TIMEOUT_SECONDS,
  SelfManagedValkey,
} from '../../infra/cache/selfmanaged/construct.js';
import { FENCE_RESOURCE_TYPE } from '../../infra/constructs/fence-installer.js';
import { FUNCTIONS_RULES_NATIVE, INSTALLER_RULES_NATIVE } from '../../src/families/access-rules.js';
import { loadConfig } from '../../src/index.js';
import { MODULE_PATH } from '../support/servers.js';
import { acknowledgmentsIn, awsSolutionsFindings, serverlessFindings } from './support/nag.js';
import { type Synthesized, synthStack } from './support/synth.js';
import {
  environmentOf,
  getAtt,
  onlyResource,
  projectFunctions,
  type Resource,
  ref,
  resourcesOf,
} from './support/template.js';

let synthesized: Synthesized;
let template: Synthesized['template'];
let cache: SelfManagedValkey;
let nodesSg: string;
let functionsSg: string;

beforeAll(() => {
  synthesized = synthStack({ cache: { kind: 'selfmanaged', moduleArtifact: MODULE_PATH } });
  template = synthesized.template;
  if (!(synthesized.stack.echoMq.cache instanceof SelfManagedValkey))
    throw new Error('not selfmanaged');
  cache = synthesized.stack.echoMq.cache;
  [nodesSg] = onlyResource(template, 'AWS::EC2::SecurityGroup', 'CacheSecurityGroup');
  [functionsSg] = onlyResource(template, 'AWS::EC2::SecurityGroup', 'FunctionsSecurityGroup');
});

/** The nodes' instances by logical id, in node order. */
function instances(): [string, Resource][] {
  return Object.entries(resourcesOf(template, 'AWS::EC2::Instance')).sort(([a], [b]) =>
    a.localeCompare(b),
  );
}

/**
 * An instance's user data as one text: literal parts as they are, references as `{Ref:id}`,
 * other intrinsics as their JSON (the template keeps them unresolved).
 */
function userDataOf(instance: Resource): string {
  const flatten = (value: unknown): string => {
    if (typeof value === 'string') return value;
    if (Array.isArray(value)) return value.map(flatten).join('');
    if (typeof value === 'object' && value !== null) {
      const entries = Object.entries(value);
      const [name, inner] = entries[0] ?? [];
      if (entries.length === 1 && name === 'Fn::Base64') return flatten(inner);
      if (entries.length === 1 && name === 'Fn::Join') {
        const [separator, parts] = inner as [string, unknown[]];
        return parts.map(flatten).join(separator);
      }
      if (entries.length === 1 && name === 'Ref') return `{Ref:${String(inner)}}`;
      return JSON.stringify(value);
    }
    return String(value);
  };
  return flatten(instance.Properties.UserData);
}

/** One `NAME='value'` line of a node's environment file. */
function setting(userData: string, name: string): string | undefined {
  return new RegExp(`^${name}='([^']*)'$`, 'm').exec(userData)?.[1];
}

function subnetOf(instance: Resource): string {
  const [nic] = instance.Properties.NetworkInterfaces as { SubnetId: { Ref: string } }[];
  return nic?.SubnetId.Ref ?? '';
}

describe('nodes', () => {
  it('are one Graviton instance per node: 3 shards × (1 primary + 1 replica)', () => {
    const nodes = instances();
    expect(nodes).toHaveLength(6);
    for (const [, instance] of nodes) {
      expect(instance.Properties).toMatchObject({
        InstanceType: 't4g.small',
        ImageId: 'resolve:ssm:/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-arm64',
        Monitoring: true,
      });
    }
  });

  it('spread over the AZs, a shard never in one AZ, three nodes in each of the two', () => {
    const nodes = instances().map(([, instance]) => instance);
    const subnets = nodes.map(subnetOf);
    for (const subnet of subnets) expect(subnet).toMatch(/^NetworkVpccacheSubnet/);
    const perSubnet = [...new Set(subnets)].map(
      (subnet) => subnets.filter((other) => other === subnet).length,
    );
    expect(perSubnet).toEqual([3, 3]);
    // Node i belongs to shard i % 3.
    for (const shard of [0, 1, 2]) expect(subnets[shard]).not.toBe(subnets[shard + 3]);
  });

  it('sit at fixed private addresses, the ones every node and function is told', () => {
    const nodes = instances().map(([, instance]) => instance);
    const addresses = nodes.map((instance) => {
      const [nic] = instance.Properties.NetworkInterfaces as { PrivateIpAddress: string }[];
      return nic?.PrivateIpAddress;
    });
    expect(new Set(addresses).size).toBe(6);
    const seeds = addresses.map((address) => `${address}:6379`);
    for (const instance of nodes) {
      expect(setting(userDataOf(instance), 'EMQ_NODES')).toBe(seeds.join(' '));
    }
    expect(cache.endpoint).toBe(seeds.join(','));
  });

  it('accept IMDSv2 only', () => {
    const templates = resourcesOf(template, 'AWS::EC2::LaunchTemplate');
    for (const [, instance] of instances()) {
      const launch = instance.Properties.LaunchTemplate as { LaunchTemplateId: { Ref: string } };
      expect(templates[launch.LaunchTemplateId.Ref]?.Properties.LaunchTemplateData).toEqual({
        MetadataOptions: { HttpTokens: 'required', HttpPutResponseHopLimit: 1 },
      });
    }
  });

  it('encrypt their root volume and keep their data on an encrypted volume of their own AZ', () => {
    const volumes = resourcesOf(template, 'AWS::EC2::Volume');
    const attachments = Object.values(resourcesOf(template, 'AWS::EC2::VolumeAttachment'));
    expect(attachments).toHaveLength(6);
    for (const [id, instance] of instances()) {
      expect(instance.Properties.BlockDeviceMappings).toEqual([
        { DeviceName: '/dev/xvda', Ebs: { Encrypted: true, VolumeSize: 10, VolumeType: 'gp3' } },
      ]);
      const attachment = attachments.find(
        (candidate) => JSON.stringify(candidate.Properties.InstanceId) === JSON.stringify(ref(id)),
      );
      expect(attachment?.Properties.Device).toBe('/dev/sdf');
      const volume = attachment?.Properties.VolumeId as { Ref: string } | undefined;
      expect(volumes[volume?.Ref ?? '']?.Properties).toMatchObject({
        AvailabilityZone: instance.Properties.AvailabilityZone,
        Encrypted: true,
        Size: 20,
        VolumeType: 'gp3',
      });
      // Kept on delete and on replacement: a final snapshot of each data volume.
      expect(volumes[volume?.Ref ?? '']).toMatchObject({
        DeletionPolicy: 'Snapshot',
        UpdateReplacePolicy: 'Snapshot',
      });
    }
  });

  it('are recovered in place by EC2 when their host fails', () => {
    const recoveries = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).filter(
      (alarm) => JSON.stringify(alarm.Properties.AlarmActions ?? []).includes(':ec2:recover'),
    );
    expect(recoveries.map((alarm) => alarm.Properties.Dimensions)).toEqual(
      instances().map(([id]) => [{ Name: 'InstanceId', Value: ref(id) }]),
    );
    for (const alarm of recoveries) {
      expect(alarm.Properties.MetricName).toBe('StatusCheckFailed_System');
    }
  });

  it('are created and updated one after another', () => {
    const nodes = instances();
    nodes.forEach(([, instance], index) => {
      const previous = nodes[index - 1];
      if (previous !== undefined) expect(instance.DependsOn).toContain(previous[0]);
    });
  });
});

describe('network', () => {
  it('admits the functions on the client port and the nodes on it and the cluster bus, nothing else', () => {
    const ingress = Object.values(resourcesOf(template, 'AWS::EC2::SecurityGroupIngress'))
      .filter(
        (rule) =>
          JSON.stringify(rule.Properties.GroupId) === JSON.stringify(getAtt(nodesSg, 'GroupId')),
      )
      .map((rule) => [
        rule.Properties.FromPort,
        rule.Properties.ToPort,
        (rule.Properties.SourceSecurityGroupId as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0],
      ]);
    expect(ingress.sort()).toEqual(
      [
        [6379, 6379, functionsSg],
        [6379, 6379, nodesSg],
        [16379, 16379, nodesSg],
      ].sort(),
    );
    const [, group] = onlyResource(template, 'AWS::EC2::SecurityGroup', 'CacheSecurityGroup');
    expect(group.Properties.SecurityGroupIngress).toBeUndefined();
  });

  it('lets the nodes out only to each other and to the AWS endpoints on 443', () => {
    const [, group] = onlyResource(template, 'AWS::EC2::SecurityGroup', 'CacheSecurityGroup');
    expect(group.Properties.SecurityGroupEgress).toEqual([
      expect.objectContaining({ CidrIp: '0.0.0.0/0', FromPort: 443, ToPort: 443 }),
    ]);
    const egress = Object.values(resourcesOf(template, 'AWS::EC2::SecurityGroupEgress'))
      .filter(
        (rule) =>
          JSON.stringify(rule.Properties.GroupId) === JSON.stringify(getAtt(nodesSg, 'GroupId')),
      )
      .map((rule) => rule.Properties.FromPort);
    expect(egress.sort()).toEqual([16379, 443, 443, 443, 443, 6379]);
  });

  it('gives the nodes S3 through a gateway and Session Manager through interface endpoints', () => {
    const gateways = Object.values(resourcesOf(template, 'AWS::EC2::VPCEndpoint')).filter(
      (endpoint) => endpoint.Properties.VpcEndpointType === 'Gateway',
    );
    expect(gateways.map((endpoint) => JSON.stringify(endpoint.Properties.ServiceName))).toEqual([
      expect.stringContaining('.s3'),
    ]);
    const services = Object.values(resourcesOf(template, 'AWS::EC2::VPCEndpoint')).map((endpoint) =>
      JSON.stringify(endpoint.Properties.ServiceName),
    );
    for (const service of ['.ssm"', '.ssmmessages"', '.ec2messages"', '.secretsmanager"']) {
      expect(services.some((name) => name.includes(service))).toBe(true);
    }
  });
});

describe('user data', () => {
  it("loads the module with the functions' wire identity", () => {
    const wires = new Set(instances().map(([, node]) => setting(userDataOf(node), 'EMQ_WIRE')));
    const functionWires = new Set(
      Object.values(projectFunctions(template)).map((fn) => environmentOf(fn).EMQ_WIRE),
    );
    expect([...wires]).toEqual(['1']);
    expect([...functionWires]).toEqual(['1']);
  });

  it('points every node at the module asset built from moduleArtifact', () => {
    for (const [, instance] of instances()) {
      expect(setting(userDataOf(instance), 'EMQ_MODULE_URI')).toBe(cache.moduleAsset.s3ObjectUrl);
    }
    expect(cache.moduleAsset.s3ObjectUrl).toMatch(/^s3:\/\/cdk-.*-assets-.*\/[0-9a-f]{64}\.so$/);
    const [, policy] = onlyResource(template, 'AWS::IAM::Policy', 'CacheNodeRole');
    expect(JSON.stringify(policy.Properties)).toContain(
      `${cache.moduleAsset.s3BucketName}/${cache.moduleAsset.s3ObjectKey}`,
    );
  });

  it('names the secrets by ARN and carries no password or resolved secret', () => {
    for (const [, instance] of instances()) {
      const userData = userDataOf(instance);
      expect(setting(userData, 'EMQ_APP_SECRET_ARN')).toMatch(/^\{Ref:CacheCredentials/);
      expect(setting(userData, 'EMQ_INSTALLER_SECRET_ARN')).toMatch(
        /^\{Ref:CacheInstallerCredentials/,
      );
      expect(setting(userData, 'EMQ_ADMIN_SECRET_ARN')).toMatch(/^\{Ref:CacheAdminCredentials/);
      expect(setting(userData, 'EMQ_TLS_SECRET_ARN')).toMatch(/^\{Ref:CacheTlsMaterial/);
      expect(userData).not.toMatch(/resolve:secretsmanager|password|SecretString/i);
    }
  });

  it("carries the functions' and the installer's ACL rules for users.acl", () => {
    for (const [, instance] of instances()) {
      const userData = userDataOf(instance);
      expect(setting(userData, 'EMQ_ACCESS_STRING')).toBe(FUNCTIONS_RULES_NATIVE);
      expect(setting(userData, 'EMQ_INSTALLER_ACCESS_STRING')).toBe(INSTALLER_RULES_NATIVE);
    }
  });

  it('runs bootstrap.sh on every boot of every node, and cluster-create.sh on node 0 only', () => {
    const nodes = instances().map(([, instance]) => userDataOf(instance));
    for (const userData of nodes) {
      expect(userData).toContain('cloud_final_modules:\n  - [scripts-user, always]');
      expect(userData).toMatch(/^\/opt\/emq\/scripts\/bootstrap\.sh/m);
    }
    const creators = nodes.filter((userData) => userData.includes('cluster-create.sh'));
    expect(creators).toEqual([nodes[0]]);
  });
});

describe('cluster-create step', () => {
  it('is a wait condition node 0 signals, which waits for every node', () => {
    const [waitId, wait] = onlyResource(template, 'AWS::CloudFormation::WaitCondition');
    const [handleId] = onlyResource(template, 'AWS::CloudFormation::WaitConditionHandle');
    expect(wait.Properties).toEqual({
      Count: 1,
      Handle: ref(handleId),
      Timeout: String(CLUSTER_CREATE_TIMEOUT_SECONDS),
    });
    for (const [id] of instances()) expect(wait.DependsOn).toContain(id);
    const signallers = instances().filter(([, instance]) =>
      setting(userDataOf(instance), 'EMQ_SIGNAL_URL'),
    );
    expect(
      signallers.map(([, instance]) => setting(userDataOf(instance), 'EMQ_SIGNAL_URL')),
    ).toEqual([`{Ref:${handleId}}`]);
    const [, fence] = onlyResource(template, FENCE_RESOURCE_TYPE);
    expect(fence.DependsOn).toContain(waitId);
  });

  it("hands the CA of node 0's signal to the functions", () => {
    const [waitId] = onlyResource(template, 'AWS::CloudFormation::WaitCondition');
    for (const fn of Object.values(projectFunctions(template))) {
      expect(environmentOf(fn).EMQ_TLS_CA).toEqual({
        'Fn::Select': [3, { 'Fn::Split': ['"', getAtt(waitId, 'Data')] }],
      });
    }
  });
});

describe('functions', () => {
  it('talk to every node over TLS with the native family in cluster mode', () => {
    const [secretId] = onlyResource(template, 'AWS::SecretsManager::Secret', 'CacheCredentials');
    const [installerId] = onlyResource(
      template,
      'AWS::SecretsManager::Secret',
      'CacheInstallerCredentials',
    );
    const seeds = cache.endpoint.split(',').map((seed) => `rediss://${seed}`);
    for (const [id, fn] of Object.entries(projectFunctions(template))) {
      expect(environmentOf(fn)).toMatchObject({
        EMQ_URL: seeds.join(','),
        EMQ_CLUSTER: 'true',
        EMQ_EXECUTOR: 'native',
        // The fence installer connects as its own ACL user, with its own secret.
        EMQ_SECRET_ARN: ref(id.includes('Fence') ? installerId : secretId),
      });
      expect(JSON.stringify(environmentOf(fn))).not.toMatch(/resolve:secretsmanager|password/i);
    }
  });

  it('get settings that src/settings/config.ts accepts', () => {
    const ca = Buffer.from('-----BEGIN CERTIFICATE-----\nstand-in\n-----END CERTIFICATE-----\n');
    const standIns: Record<string, string> = {
      EMQ_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:emq-AbCdEf',
      EMQ_TLS_CA: ca.toString('base64'),
      EMQ_DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/dlq',
    };
    for (const fn of Object.values(projectFunctions(template))) {
      const environment = Object.fromEntries(
        Object.entries(environmentOf(fn)).map(([name, value]) => [
          name,
          typeof value === 'string' ? value : standIns[name],
        ]),
      );
      expect(loadConfig(environment)).toMatchObject({
        family: 'native',
        cluster: true,
        tlsCa: ca.toString(),
      });
    }
  });

  it('may read their own credentials only, and only the nodes and the rotation function may read the admin secret', () => {
    const readersOf = (hint: string) => {
      const [secretId] = onlyResource(template, 'AWS::SecretsManager::Secret', hint);
      return Object.entries(resourcesOf(template, 'AWS::IAM::Policy'))
        .filter(([, policy]) => JSON.stringify(policy.Properties).includes(`"Ref":"${secretId}"`))
        .map(([id]) => id.replace(/[0-9A-F]{8}$/, ''));
    };
    const rotation = 'RotationFunctionServiceRoleDefaultPolicy';
    // The nodes (they hash both passwords into users.acl), the http and sqs functions, and the
    // rotation function (it rotates both users' secrets).
    const functions = readersOf('CacheCredentials');
    expect(functions).toHaveLength(4);
    expect(functions).toContain(rotation);
    expect(functions.some((id) => id.includes('Fence'))).toBe(false);
    const installer = readersOf('CacheInstallerCredentials');
    expect(installer).toHaveLength(3);
    expect(installer).toContain('CacheNodeRoleDefaultPolicy');
    expect(installer).toContain(rotation);
    expect(installer.filter((id) => id.includes('Fence'))).toHaveLength(1);
    expect(readersOf('CacheAdminCredentials').sort()).toEqual(
      ['CacheNodeRoleDefaultPolicy', rotation].sort(),
    );
    expect(readersOf('CacheTlsMaterial')).toEqual(['CacheNodeRoleDefaultPolicy']);
  });
});

describe('synthesis', () => {
  it('finds nothing unacknowledged in the AwsSolutions pack, and every acknowledgment has a reason', () => {
    expect(awsSolutionsFindings(synthesized.stack)).toEqual([]);
    expect(serverlessFindings(synthesized.stack)).toEqual([]);
    for (const { reason } of acknowledgmentsIn(synthesized.stack)) {
      expect(reason.length).toBeGreaterThanOrEqual(40);
    }
  });
});
