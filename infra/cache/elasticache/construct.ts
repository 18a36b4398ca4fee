/**
 * ElastiCache for Valkey in cluster mode: Multi-AZ with automatic failover, TLS required in
 * transit, encrypted at rest, in isolated subnets, reachable only from the functions, with an
 * RBAC user whose password lives in Secrets Manager. ElastiCache loads no modules, so the
 * functions run the function family against it. On 9.x the replication group carries the
 * chosen durability (durability.ts): cluster mode, Multi-AZ, replicas and TLS,
 * which durability needs, are always deployed.
 */
import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as elasticache from 'aws-cdk-lib/aws-elasticache';
import type { Construct } from 'constructs';
import type { FamilyChoice } from '../../../src/settings/config.js';
import { keptAs } from '../../shared/removal.js';
import type { CacheIamAuth, CacheMetrics } from '../cache.js';
import { cacheIamAuth } from '../iam-auth.js';
import type { CacheNetwork } from '../network.js';
import { OwnedCache } from '../owned.js';
import { createRbacUsers, rbacIdPrefix } from '../rbac.js';
import { cfnDurability } from './durability.js';
import { replicationGroupMetrics } from './metrics.js';
import { noEvictionParameterGroup } from './parameters.js';
import { type ElastiCacheSpec, INSTALLER_ACCESS_STRING } from './spec.js';

export interface ElastiCacheValkeyProps {
  readonly spec: Required<ElastiCacheSpec>;
  readonly network: CacheNetwork;
  readonly family: FamilyChoice;
  /**
   * On delete or replacement.
   * @default a final snapshot
   */
  readonly removalPolicy?: RemovalPolicy | undefined;
}

export { APP_USERNAME, INSTALLER_USERNAME } from '../rbac.js';

export class ElastiCacheValkey extends OwnedCache {
  readonly kind = 'elasticache';
  readonly replicationGroup: elasticache.CfnReplicationGroup;
  readonly parameterGroup: elasticache.CfnParameterGroup;
  readonly metrics: CacheMetrics;
  readonly iamAuth: CacheIamAuth | undefined;

  constructor(scope: Construct, id: string, props: ElastiCacheValkeyProps) {
    const { spec, network } = props;
    super(scope, id, {
      vpc: network.vpc,
      description: 'echomq-lambda Valkey: admits the functions only',
      clientPorts: ec2.Port.tcp(spec.port),
      clientPortsDescription: 'echomq-lambda functions to Valkey',
    });
    const rbac = createRbacUsers(this, {
      accessString: spec.accessString,
      installerAccessString: INSTALLER_ACCESS_STRING,
      cacheAuth: spec.cacheAuth,
    });
    this.useCredentials(rbac);
    const userGroup = rbac.userGroup;

    const subnetGroup = new elasticache.CfnSubnetGroup(this, 'SubnetGroup', {
      description: 'echomq-lambda Valkey: isolated subnets',
      subnetIds: network.vpc.selectSubnets(network.cacheSubnets).subnetIds,
    });

    this.parameterGroup = noEvictionParameterGroup(this, 'Parameters', spec.engineVersion);
    // IAM tokens and the Connect policy name the group: give it a known lowercase id then
    // (only then: a new id replaces an existing password-mode group).
    const groupId = rbac.iamUser === undefined ? undefined : rbacIdPrefix(this);
    const durability = cfnDurability(spec.durability, spec.engineVersion);
    this.replicationGroup = new elasticache.CfnReplicationGroup(this, 'ReplicationGroup', {
      ...(groupId === undefined ? {} : { replicationGroupId: groupId }),
      replicationGroupDescription: 'echomq-lambda job admission keyspace',
      engine: 'valkey',
      engineVersion: spec.engineVersion,
      ...(durability === undefined ? {} : { durability }),
      cacheParameterGroupName: this.parameterGroup.ref,
      clusterMode: 'enabled',
      cacheNodeType: spec.nodeType,
      numNodeGroups: spec.shards,
      replicasPerNodeGroup: spec.replicasPerShard,
      multiAzEnabled: true,
      automaticFailoverEnabled: true,
      transitEncryptionEnabled: true,
      transitEncryptionMode: 'required',
      atRestEncryptionEnabled: true,
      userGroupIds: [userGroup.userGroupId],
      port: spec.port,
      cacheSubnetGroupName: subnetGroup.ref,
      securityGroupIds: [this.securityGroup.securityGroupId],
      snapshotRetentionLimit: spec.snapshotRetentionDays,
      autoMinorVersionUpgrade: true,
    });
    this.replicationGroup.addResourceDependency(userGroup);
    // The queue's rows live here: a delete or a replacement keeps a final snapshot by default.
    this.replicationGroup.applyRemovalPolicy(keptAs(props.removalPolicy, RemovalPolicy.SNAPSHOT));
    Validations.of(this.replicationGroup).acknowledge({
      id: 'AwsSolutions-AEC6',
      reason:
        'Access is controlled by RBAC (a user group with a password user from Secrets Manager), which replaces the single shared AUTH token this rule looks for.',
    });

    const address = this.replicationGroup.attrConfigurationEndPointAddress;
    const port = this.replicationGroup.attrConfigurationEndPointPort;
    this.connectTo([`${address}:${port}`], props.family);
    this.iamAuth =
      rbac.iamUser === undefined || groupId === undefined
        ? undefined
        : cacheIamAuth(this, { user: rbac.iamUser, cacheName: groupId, serverless: false });
    this.metrics = replicationGroupMetrics(this.replicationGroup.ref, {
      ...spec,
      durability: durability === undefined ? undefined : spec.durability,
    });
  }
}
