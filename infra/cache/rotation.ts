/**
 * What a cache the construct creates offers to rotate: its password users, each with its secret
 * and its id in the cache, and what changes a user's passwords: the service's API (ElastiCache,
 * MemoryDB), or, on a self-managed cluster, the nodes themselves, as an admin user.
 * The rotation function and schedules are the construct's (constructs/credential-rotation.ts).
 */
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';

export interface RotatedUser {
  /** `{"username","password"}` of the user. */
  readonly secret: secretsmanager.Secret;
  /** The id the cache names the user by: ElastiCache's user id, MemoryDB's or the ACL's user name. */
  readonly userId: string;
}

export interface ServiceRotation {
  /** ElastiCache `ModifyUser` (node-based and Serverless) or MemoryDB `UpdateUser`. */
  readonly service: 'elasticache' | 'memorydb';
  readonly users: readonly (RotatedUser & {
    /** The user's ARN, which the rotation function may change. */
    readonly userArn: string;
  })[];
}

export interface NodeRotation {
  /** `ACL SETUSER` and `ACL SAVE` on every node, from inside the VPC. */
  readonly service: 'nodes';
  readonly users: readonly RotatedUser[];
  /** `{"username","password"}` of the user the rotation function changes the others as. */
  readonly admin: secretsmanager.Secret;
}

export type CacheRotation = ServiceRotation | NodeRotation;

/** The users of `pairs` that have a secret (a user signing IAM tokens has none), as rotated users. */
export function rotatedUsers(
  pairs: readonly (readonly [secretsmanager.Secret | undefined, string, string])[],
): ServiceRotation['users'] {
  return pairs.flatMap(([secret, userId, userArn]) =>
    secret === undefined ? [] : [{ secret, userId, userArn }],
  );
}
