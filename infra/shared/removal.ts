/**
 * What the construct keeps when its stack is deleted or a resource is replaced: by default
 * every stateful resource it creates (a final snapshot where the service takes one, else the
 * resource itself); the `removalPolicy` prop opts out.
 */
import { Aws, type CfnResource, Fn, RemovalPolicy } from 'aws-cdk-lib';

/** The user's policy, else `kept`; SNAPSHOT where a resource takes none means RETAIN. */
export function keptAs(chosen: RemovalPolicy | undefined, kept: RemovalPolicy): RemovalPolicy {
  const policy = chosen ?? kept;
  return policy === RemovalPolicy.SNAPSHOT && kept !== RemovalPolicy.SNAPSHOT
    ? RemovalPolicy.RETAIN
    : policy;
}

/**
 * A cache whose service takes a final snapshot on delete but which CloudFormation gives no
 * Snapshot policy (only Delete or Retain: ElastiCache Serverless, MemoryDB): the default (and
 * `SNAPSHOT`) is Delete with a named final snapshot, so nothing it needs is kept behind it.
 */
export function keepByFinalSnapshot(
  resource: CfnResource & { finalSnapshotName?: string | undefined },
  chosen: RemovalPolicy | undefined,
  cacheName: string,
): void {
  const policy = chosen ?? RemovalPolicy.SNAPSHOT;
  if (policy === RemovalPolicy.SNAPSHOT) {
    resource.finalSnapshotName = finalSnapshotName(cacheName);
    resource.applyRemovalPolicy(RemovalPolicy.DESTROY);
  } else {
    resource.applyRemovalPolicy(policy);
  }
}

/**
 * `<cache name>-final-<stack UUID>`: unique per stack (a stack deployed again under the same
 * name gets a new UUID, so its delete never meets the snapshot of an earlier one), and a valid
 * snapshot name: a letter first, then lowercase letters, digits and single hyphens. The cache's
 * name is fixed, so CloudFormation never replaces it within one stack (a second final snapshot).
 */
export function finalSnapshotName(cacheName: string): string {
  return Fn.join('-', [cacheName, 'final', Fn.select(2, Fn.split('/', Aws.STACK_ID))]);
}
