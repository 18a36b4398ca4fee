/**
 * `cacheAuth=iam`: what the functions need to connect with IAM tokens. The policy is
 * `<service>:Connect` on the one cache and the one IAM-enabled user (the service checks both
 * ARNs on every token), so the role can open no other cache nor act as any other user.
 * ElastiCache (node-based and Serverless) signs for `elasticache`, MemoryDB for `memorydb`.
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import type * as elasticache from 'aws-cdk-lib/aws-elasticache';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import type { CacheIamAuth } from './cache.js';

/** What the tokens are signed for and the policy names. */
export interface IamConnectTarget {
  readonly service: 'elasticache' | 'memorydb';
  /** The IAM-enabled user's name (its id on ElastiCache), which the functions AUTH as. */
  readonly userName: string;
  readonly userArn: string;
  /** The replication group id, Serverless cache name or MemoryDB cluster name (lowercase). */
  readonly cacheName: string;
  readonly cacheArn: string;
  readonly serverless: boolean;
}

export function iamConnect(target: IamConnectTarget): CacheIamAuth {
  return {
    environment: {
      EMQ_IAM_AUTH: 'true',
      EMQ_USERNAME: target.userName,
      EMQ_IAM_CACHE_NAME: target.cacheName,
      EMQ_IAM_SERVERLESS: target.serverless ? 'true' : 'false',
      // ElastiCache is the runtime's default service: its caches' environment stays as it was.
      ...(target.service === 'elasticache' ? {} : { EMQ_IAM_SERVICE: target.service }),
    },
    grantConnect: (grantee) => {
      grantee.grantPrincipal.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: [`${target.service}:Connect`],
          resources: [target.cacheArn, target.userArn],
        }),
      );
    },
  };
}

export interface ElastiCacheIamTarget {
  readonly user: elasticache.CfnUser;
  /** The replication group id or the Serverless cache name (lowercase, as tokens are signed). */
  readonly cacheName: string;
  readonly serverless: boolean;
}

/** An ElastiCache cache's IAM authentication (node-based or Serverless). */
export function cacheIamAuth(scope: Construct, target: ElastiCacheIamTarget): CacheIamAuth {
  const cacheArn = Stack.of(scope).formatArn({
    service: 'elasticache',
    resource: target.serverless ? 'serverlesscache' : 'replicationgroup',
    resourceName: target.cacheName,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
  return iamConnect({
    service: 'elasticache',
    userName: target.user.userId,
    userArn: target.user.attrArn,
    cacheName: target.cacheName,
    cacheArn,
    serverless: target.serverless,
  });
}
