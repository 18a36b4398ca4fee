/**
 * MemoryDB for Valkey: a cluster-mode cluster whose Multi-AZ transaction log holds every write
 * before it is acknowledged, TLS required (MemoryDB always encrypts at rest), in the stack's
 * isolated subnets, reachable only from the functions, with MemoryDB users in one ACL whose
 * passwords live in Secrets Manager (users.ts). Its parameter group refuses writes when full
 * (noeviction, docs/reliability.md "Acknowledgements") and keeps rows up to 1 KiB as listpacks, as
 * the ElastiCache kind's.
 */
import { type RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as memorydb from 'aws-cdk-lib/aws-memorydb';
import type { Construct } from 'constructs';
import type { FamilyChoice } from '../../../src/settings/config.js';
import { keepByFinalSnapshot } from '../../shared/removal.js';
import type { CacheIamAuth, CacheMetrics } from '../cache.js';
import { CLUSTER_PARAMETERS } from '../elasticache/parameters.js';
import { iamConnect } from '../iam-auth.js';
import type { CacheNetwork } from '../network.js';
import { OwnedCache } from '../owned.js';
import { rbacIdPrefix } from '../rbac.js';
import { memoryDbMetrics } from './metrics.js';
import type { ResolvedMemoryDb } from './spec.js';
import { createMemoryDbUsers } from './users.js';

export interface MemoryDbValkeyProps {
  readonly spec: ResolvedMemoryDb;
  readonly network: CacheNetwork;
  readonly family: FamilyChoice;
  /**
   * On delete or replacement.
   * @default (and `SNAPSHOT`): deleted with a final snapshot; `RETAIN` keeps the cluster (and what it needs, constructs/kept-references.ts); `DESTROY` deletes it
   */
  readonly removalPolicy?: RemovalPolicy | undefined;
}

/**
 * The parameters that differ from the family's default. MemoryDB is always in cluster mode
 * (no cluster-enabled parameter); the rest is the ElastiCache kind's, for the same reasons.
 */
export const MEMORYDB_PARAMETERS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(CLUSTER_PARAMETERS).filter(([name]) => name !== 'cluster-enabled'),
);

export class MemoryDbValkey extends OwnedCache {
  readonly kind = 'memorydb';
  readonly cluster: memorydb.CfnCluster;
  readonly parameterGroup: memorydb.CfnParameterGroup;
  readonly metrics: CacheMetrics;
  readonly iamAuth: CacheIamAuth | undefined;

  constructor(scope: Construct, id: string, props: MemoryDbValkeyProps) {
    const { spec, network } = props;
    super(scope, id, {
      vpc: network.vpc,
      description: 'echomq-lambda MemoryDB: admits the functions only',
      clientPorts: ec2.Port.tcp(spec.port),
      clientPortsDescription: 'echomq-lambda functions to MemoryDB',
    });
    // Cluster, ACL, user, subnet and parameter group names are account-wide: one prefix from
    // the construct's path, lowercase as MemoryDB wants them.
    const name = rbacIdPrefix(this);
    const users = createMemoryDbUsers(this, name, spec);
    this.useCredentials(users);

    const subnetGroup = new memorydb.CfnSubnetGroup(this, 'SubnetGroup', {
      subnetGroupName: name,
      description: 'echomq-lambda MemoryDB: isolated subnets',
      subnetIds: network.vpc.selectSubnets(network.cacheSubnets).subnetIds,
    });
    this.parameterGroup = new memorydb.CfnParameterGroup(this, 'Parameters', {
      parameterGroupName: name,
      family: `memorydb_valkey${spec.engineVersion.split('.')[0]}`,
      description:
        'echomq-lambda: noeviction (a full cache refuses writes, evicts nothing), rows up to 1 KiB as listpacks',
      parameters: { ...MEMORYDB_PARAMETERS },
    });
    this.cluster = new memorydb.CfnCluster(this, 'Cluster', {
      clusterName: name,
      description: 'echomq-lambda job admission keyspace',
      engine: 'valkey',
      engineVersion: spec.engineVersion,
      nodeType: spec.nodeType,
      numShards: spec.shards,
      numReplicasPerShard: spec.replicasPerShard,
      aclName: users.acl.aclName,
      tlsEnabled: true,
      port: spec.port,
      subnetGroupName: subnetGroup.subnetGroupName,
      securityGroupIds: [this.securityGroup.securityGroupId],
      parameterGroupName: this.parameterGroup.parameterGroupName,
      snapshotRetentionLimit: spec.snapshotRetentionDays,
      autoMinorVersionUpgrade: true,
    });
    this.cluster.addResourceDependency(users.acl);
    this.cluster.addResourceDependency(subnetGroup);
    this.cluster.addResourceDependency(this.parameterGroup);
    // The queue's rows live here. CloudFormation takes no Snapshot policy on a MemoryDB
    // cluster (only Delete or Retain): kept by a final snapshot, as the Serverless kind.
    keepByFinalSnapshot(this.cluster, props.removalPolicy, name);

    // The port is the one set above: the endpoint's Port attribute is a number, which a
    // joined URL would carry as a token CloudFormation's validation flags.
    this.connectTo([`${this.cluster.attrClusterEndpointAddress}:${spec.port}`], props.family);
    this.iamAuth =
      users.credentials === undefined
        ? iamConnect({
            service: 'memorydb',
            userName: users.appUser.userName,
            userArn: users.appUser.attrArn,
            cacheName: name,
            cacheArn: Stack.of(this).formatArn({
              service: 'memorydb',
              resource: 'cluster',
              resourceName: name,
            }),
            serverless: false,
          })
        : undefined;
    this.metrics = memoryDbMetrics(name, spec);
  }
}
