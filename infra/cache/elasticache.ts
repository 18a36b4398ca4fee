/**
 * ElastiCache for Valkey in cluster mode: Multi-AZ with automatic failover, TLS required in
 * transit, encrypted at rest, in isolated subnets, reachable only from the functions, with an
 * RBAC user whose password lives in Secrets Manager. ElastiCache loads no modules, so the
 * functions run the script executor against it.
 */
import { Names, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as elasticache from 'aws-cdk-lib/aws-elasticache';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type IDependable } from 'constructs';
import type { EchoMqNetwork } from '../network.js';
import type { ElastiCacheSettings } from '../settings.js';
import type { CacheConnectionEnvironment, EchoMqCache } from './cache.js';

export interface ElastiCacheValkeyProps {
  readonly settings: Required<ElastiCacheSettings>;
  readonly network: EchoMqNetwork;
}

/** The RBAC user the functions connect as. */
export const APP_USERNAME = 'emq-app';

export class ElastiCacheValkey extends Construct implements EchoMqCache {
  readonly kind = 'elasticache';
  readonly connectionEnvironment: CacheConnectionEnvironment;
  readonly endpoint: string;
  readonly ready: IDependable;
  readonly securityGroup: ec2.SecurityGroup;
  /** `{"username","password"}` of the functions' user. */
  readonly credentials: secretsmanager.Secret;
  readonly replicationGroup: elasticache.CfnReplicationGroup;
  private readonly port: number;

  constructor(scope: Construct, id: string, props: ElastiCacheValkeyProps) {
    super(scope, id);
    const { settings, network } = props;
    this.port = settings.port;
    // User and group ids are account-wide names: derive them from this construct's path.
    const idPrefix = rbacIdPrefix(this);

    this.credentials = new secretsmanager.Secret(this, 'Credentials', {
      description: 'echomq-lambda: Valkey RBAC user of the functions',
      generateSecretString: {
        secretStringTemplate: JSON.stringify({ username: APP_USERNAME }),
        generateStringKey: 'password',
        passwordLength: 32,
        excludePunctuation: true,
      },
    });
    // Every user group must hold a user named `default`; this one is switched off, and a
    // Valkey user group admits only users with a password.
    const disabledDefault = new secretsmanager.Secret(this, 'DisabledDefaultUserPassword', {
      description: 'echomq-lambda: password of the switched-off default Valkey user',
      generateSecretString: { passwordLength: 32, excludePunctuation: true },
    });
    for (const secret of [this.credentials, disabledDefault]) {
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'ElastiCache RBAC passwords have no managed rotation; rotate by putting a new secret value and redeploying (the user accepts two passwords during the change).',
      });
    }

    const appUser = new elasticache.CfnUser(this, 'AppUser', {
      engine: 'valkey',
      userId: `${idPrefix}-app`,
      userName: APP_USERNAME,
      accessString: settings.accessString,
      passwords: [this.credentials.secretValueFromJson('password').unsafeUnwrap()],
    });
    const defaultUser = new elasticache.CfnUser(this, 'DisabledDefaultUser', {
      engine: 'valkey',
      userId: `${idPrefix}-default`,
      userName: 'default',
      accessString: 'off -@all',
      passwords: [disabledDefault.secretValue.unsafeUnwrap()],
    });
    const userGroup = new elasticache.CfnUserGroup(this, 'UserGroup', {
      engine: 'valkey',
      userGroupId: idPrefix,
      userIds: [appUser.userId, defaultUser.userId],
    });
    userGroup.addResourceDependency(appUser);
    userGroup.addResourceDependency(defaultUser);

    this.securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: network.vpc,
      description: 'echomq-lambda Valkey: admits the functions only',
      allowAllOutbound: false,
    });
    const subnetGroup = new elasticache.CfnSubnetGroup(this, 'SubnetGroup', {
      description: 'echomq-lambda Valkey: isolated subnets',
      subnetIds: network.vpc.selectSubnets(network.cacheSubnets).subnetIds,
    });

    const major = settings.engineVersion.split('.')[0];
    this.replicationGroup = new elasticache.CfnReplicationGroup(this, 'ReplicationGroup', {
      replicationGroupDescription: 'echomq-lambda job admission keyspace',
      engine: 'valkey',
      engineVersion: settings.engineVersion,
      cacheParameterGroupName: `default.valkey${major}.cluster.on`,
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
      EMQ_EXECUTOR: 'function',
      EMQ_SECRET_ARN: this.credentials.secretArn,
    };
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
    this.credentials.grantRead(grantee);
  }
}

/** A lowercase id, unique per stack and construct, that ElastiCache accepts ([a-z][a-z0-9-]*). */
function rbacIdPrefix(scope: Construct): string {
  // The unique name keeps its hash at the end, so two stacks in one account never collide.
  const unique = Names.uniqueResourceName(scope, { maxLength: 24, separator: '-' });
  return `emq-${unique}`
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-');
}
