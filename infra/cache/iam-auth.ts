/**
 * `cacheAuth=iam`: what the functions need to connect with ElastiCache IAM tokens. The policy
 * is `elasticache:Connect` on the one cache and the one IAM-enabled user (ElastiCache checks
 * both ARNs on every token), so the role can open no other cache nor act as any other user.
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import type * as elasticache from 'aws-cdk-lib/aws-elasticache';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import type { CacheIamAuth } from './cache.js';

export interface IamAuthTarget {
  readonly user: elasticache.CfnUser;
  /** The replication group id or the Serverless cache name (lowercase, as tokens are signed). */
  readonly cacheName: string;
  readonly serverless: boolean;
}

export function cacheIamAuth(scope: Construct, target: IamAuthTarget): CacheIamAuth {
  const cacheArn = Stack.of(scope).formatArn({
    service: 'elasticache',
    resource: target.serverless ? 'serverlesscache' : 'replicationgroup',
    resourceName: target.cacheName,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
  return {
    environment: {
      EMQ_IAM_AUTH: 'true',
      EMQ_USERNAME: target.user.userId,
      EMQ_IAM_CACHE_NAME: target.cacheName,
      EMQ_IAM_SERVERLESS: target.serverless ? 'true' : 'false',
    },
    grantConnect: (grantee) => {
      grantee.grantPrincipal.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['elasticache:Connect'],
          resources: [cacheArn, target.user.attrArn],
        }),
      );
    },
  };
}
