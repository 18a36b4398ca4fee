/**
 * What a cache the construct creates offers to rotate: its password users, each with its secret
 * and its id in the cache service's API, and the service whose API changes a user's passwords.
 * The rotation function and schedules are the construct's (constructs/credential-rotation.ts).
 */
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';

export interface RotatedUser {
  /** `{"username","password"}` of the user. */
  readonly secret: secretsmanager.Secret;
  /** The id the service's API names the user by: ElastiCache's user id, MemoryDB's user name. */
  readonly userId: string;
  /** The user's ARN, which the rotation function may change. */
  readonly userArn: string;
}

export interface CacheRotation {
  /** ElastiCache `ModifyUser` (node-based and Serverless) or MemoryDB `UpdateUser`. */
  readonly service: 'elasticache' | 'memorydb';
  readonly users: readonly RotatedUser[];
}

/** The users of `pairs` that have a secret (a user signing IAM tokens has none), as rotated users. */
export function rotatedUsers(
  pairs: readonly (readonly [secretsmanager.Secret | undefined, RotatedUser['userId'], string])[],
): RotatedUser[] {
  return pairs.flatMap(([secret, userId, userArn]) =>
    secret === undefined ? [] : [{ secret, userId, userArn }],
  );
}
