/**
 * ElastiCache for Valkey in cluster mode: Multi-AZ with automatic failover, TLS required in
 * transit, encrypted at rest, in isolated subnets, reachable only from the functions, with an
 * RBAC user whose password lives in Secrets Manager. ElastiCache loads no modules, so the
 * functions run the function family against it. On 9.x the replication group carries the
 * chosen durability (durability-settings.ts): cluster mode, Multi-AZ, replicas and TLS,
 * which durability needs, are always deployed.
 */
import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as elasticache from 'aws-cdk-lib/aws-elasticache';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type IDependable } from 'constructs';
import type { ExecutorChoice } from '../../src/config.js';
import { cfnDurability } from '../durability-settings.js';
import { type ElastiCacheSettings, INSTALLER_ACCESS_STRING } from '../elasticache-settings.js';
import { keptAs } from '../removal.js';
import {
  type CacheConnectionEnvironment,
  type CacheIamAuth,
  type CacheMetrics,
  type CacheTarget,
  type InstallerAccess,
  installerBySecret,
} from './cache.js';
import { replicationGroupMetrics } from './cache-metrics.js';
import { noEvictionParameterGroup } from './engine.js';
import { cacheIamAuth } from './iam-auth.js';
import type { CacheNetwork } from './network.js';
import { createRbacUsers, rbacIdPrefix } from './rbac.js';

export interface ElastiCacheValkeyProps {
  readonly settings: Required<ElastiCacheSettings>;
  readonly network: CacheNetwork;
  readonly executor: ExecutorChoice;
  /** On delete or replacement. Default: a final snapshot. */
  readonly removalPolicy?: RemovalPolicy | undefined;
}

export { APP_USERNAME, INSTALLER_USERNAME } from './rbac.js';

export class ElastiCacheValkey extends Construct implements CacheTarget {
  readonly kind = 'elasticache';
  readonly connectionEnvironment: CacheConnectionEnvironment;
  readonly endpoint: string;
  readonly ready: IDependable;
  readonly securityGroup: ec2.SecurityGroup;
  /** `{"username","password"}` of the functions' user; none with `cacheAuth=iam`. */
  readonly credentials: secretsmanager.Secret | undefined;
  /** `{"username","password"}` of the installer's user; readable by the installer only. */
  readonly installerCredentials: secretsmanager.Secret;
  readonly installer: InstallerAccess;
  readonly replicationGroup: elasticache.CfnReplicationGroup;
  readonly parameterGroup: elasticache.CfnParameterGroup;
  readonly metrics: CacheMetrics;
  readonly iamAuth: CacheIamAuth | undefined;
  private readonly port: number;

  constructor(scope: Construct, id: string, props: ElastiCacheValkeyProps) {
    super(scope, id);
    const { settings, network } = props;
    this.port = settings.port;
    const rbac = createRbacUsers(this, {
      accessString: settings.accessString,
      installerAccessString: INSTALLER_ACCESS_STRING,
      cacheAuth: settings.cacheAuth,
    });
    this.credentials = rbac.credentials;
    this.installerCredentials = rbac.installerCredentials;
    this.installer = installerBySecret(rbac.installerCredentials);
    const userGroup = rbac.userGroup;

    this.securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: network.vpc,
      description: 'echomq-lambda Valkey: admits the functions only',
      allowAllOutbound: false,
    });
    const subnetGroup = new elasticache.CfnSubnetGroup(this, 'SubnetGroup', {
      description: 'echomq-lambda Valkey: isolated subnets',
      subnetIds: network.vpc.selectSubnets(network.cacheSubnets).subnetIds,
    });

    this.parameterGroup = noEvictionParameterGroup(this, 'Parameters', settings.engineVersion);
    // IAM tokens and the Connect policy name the group: give it a known lowercase id then
    // (only then: a new id replaces an existing password-mode group).
    const groupId = rbac.iamUser === undefined ? undefined : rbacIdPrefix(this);
    const durability = cfnDurability(settings.durability, settings.engineVersion);
    this.replicationGroup = new elasticache.CfnReplicationGroup(this, 'ReplicationGroup', {
      ...(groupId === undefined ? {} : { replicationGroupId: groupId }),
      replicationGroupDescription: 'echomq-lambda job admission keyspace',
      engine: 'valkey',
      engineVersion: settings.engineVersion,
      ...(durability === undefined ? {} : { durability }),
      cacheParameterGroupName: this.parameterGroup.ref,
      clusterMode: 'enabled',
      cacheNodeType: settings.nodeType,
      numNodeGroups: settings.shards,
      replicasPerNodeGroup: settings.replicasPerShard,
      multiAzEnabled: true,
      automaticFailoverEnabled: true,
      transitEncryptionEnabled: true,
      transitEncryptionMode: 'required',
      atRestEncryptionEnabled: true,
      userGroupIds: [userGroup.userGroupId],
      port: settings.port,
      cacheSubnetGroupName: subnetGroup.ref,
      securityGroupIds: [this.securityGroup.securityGroupId],
      snapshotRetentionLimit: settings.snapshotRetentionDays,
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
    this.endpoint = `${address}:${port}`;
    this.connectionEnvironment = {
      EMQ_URL: `rediss://${address}:${port}`,
      EMQ_CLUSTER: 'true',
      EMQ_EXECUTOR: props.executor,
      // With cacheAuth=iam the functions hold no password: iamAuth adds what they sign for.
      ...(this.credentials === undefined ? {} : { EMQ_SECRET_ARN: this.credentials.secretArn }),
    };
    this.iamAuth =
      rbac.iamUser === undefined || groupId === undefined
        ? undefined
        : cacheIamAuth(this, { user: rbac.iamUser, cacheName: groupId, serverless: false });
    this.metrics = replicationGroupMetrics(this.replicationGroup.ref, {
      ...settings,
      durability: durability === undefined ? undefined : settings.durability,
    });
    // The whole construct: the cluster, its users and the security group rules that admit the functions.
    this.ready = this;
  }

  allowConnectionsFrom(group: ec2.ISecurityGroup): void {
    this.securityGroup.connections.allowFrom(
      group,
      ec2.Port.tcp(this.port),
      'echomq-lambda functions to Valkey',
    );
  }

  grantCredentials(grantee: iam.IGrantable): void {
    this.credentials?.grantRead(grantee);
  }
}
