/**
 * ElastiCache Serverless for Valkey: one TLS endpoint (cluster mode), usage limits, RBAC users
 * as on the node-based cache, in the stack's isolated subnets. The service loads no module
 * and has no FCALL, FUNCTION or WAIT: the functions run the script family (EVALSHA of the
 * library) with EMQ_ACK_REPLICAS=0, under the script family's rules. Its forced
 * `volatile-lru` evicts nothing they write (no TTL, docs/reliability.md "Acknowledgements"). The
 * fence installer works against the one endpoint, which routes to every shard.
 */
import type { RemovalPolicy } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as elasticache from 'aws-cdk-lib/aws-elasticache';
import type { Construct } from 'constructs';
import type { FamilyChoice } from '../../../src/settings/config.js';
import { keepByFinalSnapshot } from '../../shared/removal.js';
import type { CacheIamAuth, CacheMetrics } from '../cache.js';
import { cacheIamAuth } from '../iam-auth.js';
import type { CacheNetwork } from '../network.js';
import { OwnedCache } from '../owned.js';
import { createRbacUsers, rbacIdPrefix } from '../rbac.js';
import { serverlessMetrics } from './metrics.js';
import { SERVERLESS_INSTALLER_ACCESS_STRING, type ServerlessSpec } from './spec.js';

export interface ServerlessValkeyProps {
  readonly spec: Required<ServerlessSpec>;
  readonly network: CacheNetwork;
  readonly family: FamilyChoice;
  /**
   * On delete or replacement.
   * @default (and `SNAPSHOT`): deleted with a final snapshot; `RETAIN` keeps the cache (and what it needs, constructs/kept-references.ts); `DESTROY` deletes it
   */
  readonly removalPolicy?: RemovalPolicy | undefined;
}

/** The port of a Serverless cache's endpoint (its reader endpoint listens on 6380). */
export const SERVERLESS_PORT = 6379;

export class ServerlessValkey extends OwnedCache {
  readonly kind = 'serverless';
  readonly metrics: CacheMetrics;
  readonly cache: elasticache.CfnServerlessCache;
  readonly iamAuth: CacheIamAuth | undefined;

  constructor(scope: Construct, id: string, props: ServerlessValkeyProps) {
    const { spec, network } = props;
    super(scope, id, {
      vpc: network.vpc,
      description: 'echomq-lambda Valkey Serverless: admits the functions only',
      clientPorts: ec2.Port.tcpRange(SERVERLESS_PORT, SERVERLESS_PORT + 1),
      clientPortsDescription:
        'echomq-lambda functions to Valkey Serverless (endpoint and reader endpoint)',
    });
    const rbac = createRbacUsers(this, {
      accessString: spec.accessString,
      installerAccessString: SERVERLESS_INSTALLER_ACCESS_STRING,
      cacheAuth: spec.cacheAuth,
    });
    this.useCredentials(rbac);
    const name = rbacIdPrefix(this);
    this.cache = new elasticache.CfnServerlessCache(this, 'ServerlessCache', {
      serverlessCacheName: name,
      description: 'echomq-lambda job admission keyspace',
      engine: 'valkey',
      majorEngineVersion: spec.majorEngineVersion,
      cacheUsageLimits: {
        dataStorage: { maximum: spec.dataStorageMaxGb, unit: 'GB' },
        ecpuPerSecond: { maximum: spec.ecpuPerSecondMax },
      },
      subnetIds: network.vpc.selectSubnets(network.cacheSubnets).subnetIds,
      securityGroupIds: [this.securityGroup.securityGroupId],
      userGroupId: rbac.userGroup.userGroupId,
      snapshotRetentionLimit: spec.snapshotRetentionDays,
    });
    this.cache.addResourceDependency(rbac.userGroup);
    // The queue's rows live here: kept by a final snapshot, as the node-based cache's.
    keepByFinalSnapshot(this.cache, props.removalPolicy, name);

    const address = this.cache.attrEndpointAddress;
    const port = this.cache.attrEndpointPort;
    this.connectTo([`${address}:${port}`], props.family);
    this.iamAuth =
      rbac.iamUser === undefined
        ? undefined
        : cacheIamAuth(this, { user: rbac.iamUser, cacheName: name, serverless: true });
    this.metrics = serverlessMetrics(name, spec.dataStorageMaxGb);
  }
}
