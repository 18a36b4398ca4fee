/**
 * What the construct keeps when its stack is deleted or a resource is replaced: by default
 * every stateful resource it creates (a final snapshot where the service takes one, else the
 * resource itself); the `removalPolicy` prop opts out.
 */
import { RemovalPolicy } from 'aws-cdk-lib';

/** The user's policy, else `kept`; SNAPSHOT where a resource takes none means RETAIN. */
export function keptAs(chosen: RemovalPolicy | undefined, kept: RemovalPolicy): RemovalPolicy {
  const policy = chosen ?? kept;
  return policy === RemovalPolicy.SNAPSHOT && kept !== RemovalPolicy.SNAPSHOT
    ? RemovalPolicy.RETAIN
    : policy;
}
