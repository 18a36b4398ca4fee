// cache=memorydb: MemoryDB for Valkey, synthesized once: the cluster (TLS, its parameter
// group, kept with a final snapshot), its ACL users with the function family's rules, the
// functions' environment with no WAIT (the transaction log confirms writes), IAM tokens signed
// for memorydb, and cdk-nag as on the other kinds.
import { RemovalPolicy } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { FENCE_RESOURCE_TYPE } from '../../infra/constructs/fence-installer.js';
import { deploymentFromContext } from '../../infra/deployment/context.js';
import { resolveDeployment } from '../../infra/deployment/deployment.js';
import { EchoMqCache } from '../../infra/index.js';
import {
  FUNCTIONS_RULES_FUNCTION,
  INSTALLER_RULES_FUNCTION,
} from '../../src/families/access-rules.js';
import { composeEchoMq } from './support/construct.js';
import { awsSolutionsFindings, serverlessFindings } from './support/nag.js';
import { type Synthesized, synthStack } from './support/synth.js';
import {
  environmentOf,
  getAtt,
  onlyResource,
  projectFunctions,
  type Resource,
  resourcesOf,
} from './support/template.js';

let synthesized: Synthesized;
let template: Synthesized['template'];

beforeAll(() => {
  synthesized = synthStack({ cache: { kind: 'memorydb', shards: 2 } });
  template = synthesized.template;
});

describe('cache=memorydb', () => {
  it('is one MemoryDB for Valkey cluster: TLS, its ACL, its subnet and parameter groups, in the isolated subnets', () => {
    template.resourceCountIs('AWS::ElastiCache::ReplicationGroup', 0);
    template.resourceCountIs('AWS::ElastiCache::User', 0);
    const [clusterId, cluster] = onlyResource(template, 'AWS::MemoryDB::Cluster');
    const [aclId, acl] = onlyResource(template, 'AWS::MemoryDB::ACL');
    const [subnetGroupId, subnetGroup] = onlyResource(template, 'AWS::MemoryDB::SubnetGroup');
    const [parametersId, parameters] = onlyResource(template, 'AWS::MemoryDB::ParameterGroup');
    const [sgId] = onlyResource(template, 'AWS::EC2::SecurityGroup', 'CacheSecurityGroup');
    const name = cluster.Properties.ClusterName as string;
    expect(name).toMatch(/^emq-[a-z0-9-]+$/);
    expect(cluster.Properties).toMatchObject({
      Engine: 'valkey',
      EngineVersion: '7.3',
      NodeType: 'db.t4g.small',
      NumShards: 2,
      NumReplicasPerShard: 1,
      TLSEnabled: true,
      Port: 6379,
      ACLName: acl.Properties.ACLName,
      SubnetGroupName: subnetGroup.Properties.SubnetGroupName,
      ParameterGroupName: parameters.Properties.ParameterGroupName,
      SecurityGroupIds: [getAtt(sgId, 'GroupId')],
      SnapshotRetentionLimit: 1,
    });
    expect(cluster.DependsOn).toEqual(expect.arrayContaining([aclId, subnetGroupId, parametersId]));
    const subnets = (subnetGroup.Properties.SubnetIds as { Ref: string }[]).map((id) => id.Ref);
    expect(subnets).toHaveLength(2);
    for (const id of subnets) expect(id).toMatch(/^NetworkVpccacheSubnet/);
    expect(clusterId).toMatch(/^Cache/);
  });

  it('refuses writes when full and keeps rows up to 1 KiB as listpacks', () => {
    const [, parameters] = onlyResource(template, 'AWS::MemoryDB::ParameterGroup');
    expect(parameters.Properties).toMatchObject({
      Family: 'memorydb_valkey7',
      Parameters: { 'maxmemory-policy': 'noeviction', 'hash-max-listpack-value': '1024' },
    });
    // MemoryDB is always in cluster mode: no cluster-enabled parameter to set.
    expect(parameters.Properties.Parameters).not.toHaveProperty('cluster-enabled');
  });

  it('is deleted with a final snapshot named per stack, as CloudFormation takes no Snapshot policy on it', () => {
    const [, cluster] = onlyResource(template, 'AWS::MemoryDB::Cluster');
    expect(cluster).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    expect(JSON.stringify(cluster.Properties.FinalSnapshotName)).toContain('final');
    const retained = composeEchoMq(() => ({
      cache: EchoMqCache.memoryDb(),
      removalPolicy: RemovalPolicy.RETAIN,
    })).template;
    const [, kept] = onlyResource(retained, 'AWS::MemoryDB::Cluster');
    expect(kept).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(kept.Properties).not.toHaveProperty('FinalSnapshotName');
  });

  it("holds the functions' and the installer's users only, each with its family's rules and its own secret", () => {
    const [, acl] = onlyResource(template, 'AWS::MemoryDB::ACL');
    const users = Object.entries(resourcesOf(template, 'AWS::MemoryDB::User'));
    expect(users).toHaveLength(2);
    const byRules = (rules: string): Resource => {
      const found = users.filter(([, user]) => user.Properties.AccessString === rules);
      expect(found).toHaveLength(1);
      return (found[0] as [string, Resource])[1];
    };
    const app = byRules(FUNCTIONS_RULES_FUNCTION);
    const installer = byRules(INSTALLER_RULES_FUNCTION);
    expect(acl.Properties.UserNames).toEqual([
      app.Properties.UserName,
      installer.Properties.UserName,
    ]);
    const secrets = resourcesOf(template, 'AWS::SecretsManager::Secret');
    for (const [user, hint] of [
      [app, 'CacheCredentials'],
      [installer, 'CacheInstallerCredentials'],
    ] as const) {
      expect(user.Properties.UserName).toMatch(/^emq-[a-z0-9-]+-(app|installer)$/);
      const [secretId, secret] = onlyResource(template, 'AWS::SecretsManager::Secret', hint);
      const mode = user.Properties.AuthenticationMode as { Type: string; Passwords: unknown };
      expect(mode.Type).toBe('password');
      expect(JSON.stringify(mode.Passwords)).toContain(`"Ref":"${secretId}"`);
      const generate = secret.Properties.GenerateSecretString as { SecretStringTemplate: string };
      expect(JSON.parse(generate.SecretStringTemplate)).toEqual({
        username: user.Properties.UserName,
      });
    }
    expect(Object.keys(secrets)).toHaveLength(2);
  });

  it('points the functions at its TLS endpoint: cluster mode, the function family, no WAIT', () => {
    const [clusterId] = onlyResource(template, 'AWS::MemoryDB::Cluster');
    const [appSecret] = onlyResource(template, 'AWS::SecretsManager::Secret', 'CacheCredentials');
    for (const [id, fn] of Object.entries(projectFunctions(template))) {
      const environment = environmentOf(fn);
      expect(environment).toMatchObject({
        EMQ_URL: {
          'Fn::Join': ['', ['rediss://', getAtt(clusterId, 'ClusterEndpoint.Address'), ':6379']],
        },
        EMQ_CLUSTER: 'true',
        EMQ_EXECUTOR: 'function',
      });
      if (id.includes('Fence')) continue;
      expect(environment).toMatchObject({
        EMQ_SECRET_ARN: { Ref: appSecret },
        // The transaction log holds every acknowledged write: no replica to wait for.
        EMQ_ACK_REPLICAS: '0',
      });
    }
  });

  it('installs the fence with the function family once the cluster exists', () => {
    const [clusterId] = onlyResource(template, 'AWS::MemoryDB::Cluster');
    const [, fence] = onlyResource(template, FENCE_RESOURCE_TYPE);
    expect(fence.Properties).toMatchObject({ Executor: 'function' });
    expect(fence.DependsOn).toContain(clusterId);
  });

  it('admits the functions on the cluster port only', () => {
    const [cacheSg] = onlyResource(template, 'AWS::EC2::SecurityGroup', 'CacheSecurityGroup');
    const ingress = Object.values(resourcesOf(template, 'AWS::EC2::SecurityGroupIngress')).filter(
      (rule) =>
        JSON.stringify(rule.Properties.GroupId) === JSON.stringify(getAtt(cacheSg, 'GroupId')),
    );
    expect(ingress.map((rule) => [rule.Properties.FromPort, rule.Properties.ToPort])).toEqual([
      [6379, 6379],
    ]);
  });

  it('alarms on every node of every shard from AWS/MemoryDB', () => {
    const body = JSON.stringify(resourcesOf(template, 'AWS::CloudWatch::Alarm'));
    expect(body).toContain('AWS/MemoryDB');
    expect(body).toContain('-0002-002');
  });

  it('finds nothing unacknowledged in the AwsSolutions and Serverless packs', () => {
    expect(awsSolutionsFindings(synthesized.stack)).toEqual([]);
    expect(serverlessFindings(synthesized.stack)).toEqual([]);
  });
});

describe('cache=memorydb cacheAuth=iam', () => {
  const synthesizedIam = synthStack({ cache: { kind: 'memorydb', cacheAuth: 'iam' } });
  const { template: iam } = synthesizedIam;

  it('makes the functions’ user IAM-enabled and signs for memorydb on this cluster and this user only', () => {
    const [userId, user] = onlyResource(iam, 'AWS::MemoryDB::User', 'IamUser');
    const [, cluster] = onlyResource(iam, 'AWS::MemoryDB::Cluster');
    expect(user.Properties).toMatchObject({
      AccessString: FUNCTIONS_RULES_FUNCTION,
      AuthenticationMode: { Type: 'iam' },
    });
    const name = cluster.Properties.ClusterName as string;
    for (const [id, fn] of Object.entries(projectFunctions(iam))) {
      if (id.includes('Fence')) continue;
      const environment = environmentOf(fn);
      expect(environment).toMatchObject({
        EMQ_IAM_AUTH: 'true',
        EMQ_IAM_SERVICE: 'memorydb',
        EMQ_USERNAME: user.Properties.UserName,
        EMQ_IAM_CACHE_NAME: name,
        EMQ_IAM_SERVERLESS: 'false',
      });
      expect(environment).not.toHaveProperty('EMQ_SECRET_ARN');
    }
    const statements = Object.values(resourcesOf(iam, 'AWS::IAM::Policy')).flatMap(
      (policy) =>
        (
          policy.Properties.PolicyDocument as {
            Statement: { Action: unknown; Resource: unknown }[];
          }
        ).Statement,
    );
    const connects = statements.filter((s) => s.Action === 'memorydb:Connect');
    expect(connects.length).toBeGreaterThan(0);
    for (const connect of connects) {
      const [cluster, userArn] = connect.Resource as unknown[];
      expect(JSON.stringify(cluster)).toContain(
        `:memorydb:eu-west-1:123456789012:cluster/${name}"`,
      );
      expect(userArn).toEqual(getAtt(userId, 'Arn'));
    }
    expect(JSON.stringify(statements)).not.toContain('elasticache:Connect');
    expect(awsSolutionsFindings(synthesizedIam.stack)).toEqual([]);
  });
});

describe('cache=memorydb choices', () => {
  it('reads its context keys and refuses them with another kind', () => {
    const read = (values: Record<string, string>) => deploymentFromContext((key) => values[key]);
    expect(
      read({ cache: 'memorydb', memoryDbNodeType: 'db.r7g.large', memoryDbShards: '3' }).deployment
        .cache,
    ).toMatchObject({ kind: 'memorydb', nodeType: 'db.r7g.large', shards: 3 });
    expect(read({ cache: 'elasticache', memoryDbShards: '3' }).problems).toEqual([
      'memoryDbShards applies only to cache=memorydb.',
    ]);
  });

  it('names each value it refuses', () => {
    expect(
      resolveDeployment({
        cache: { kind: 'memorydb', nodeType: 'cache.t4g.small', engineVersion: '8.0', shards: 0 },
      }).problems,
    ).toEqual([
      'memoryDbNodeType must look like db.t4g.small.',
      expect.stringMatching(/^memoryDbShards/),
      'memoryDbEngineVersion must be a Valkey version MemoryDB offers: 7.2 or 7.3.',
    ]);
  });

  it("holds shards and replicas to MemoryDB's 500 nodes per cluster", () => {
    const problems = (shards: number, replicasPerShard: number) =>
      resolveDeployment({ cache: { kind: 'memorydb', shards, replicasPerShard } }).problems;
    expect(problems(250, 1)).toEqual([]);
    expect(problems(100, 4)).toEqual([]);
    expect(problems(251, 1)).toEqual([
      "memoryDbShards × (memoryDbReplicas + 1) must be at most 500 nodes (MemoryDB's limit per cluster); 251 × 2 is 502.",
    ]);
  });
});
