/**
 * docs/deploy.md "Tearing down": no resource that a kept resource (`DeletionPolicy: Retain`) refers
 * to, by `Ref`, `Fn::GetAtt`, `Fn::Sub` or `DependsOn`, directly or through others, is deleted with
 * the stack; CloudFormation would otherwise try to delete a security group, a user group or subnets
 * that the kept cache still uses, and the delete would fail. At synthesis, after everything is
 * built (the team's additions too), every resource the construct keeps is walked and what it needs
 * is kept as well: its users, secrets and security groups, and the subnets and VPC it lives in
 * where they are in the same stack.
 */
import {
  AspectPriority,
  Aspects,
  CfnDeletionPolicy,
  CfnResource,
  type IAspect,
  RemovalPolicy,
  Stack,
} from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** Keeps, when the stack is synthesized, every resource a kept resource under `root` needs. */
export function keepWhatKeptResourcesNeed(root: IConstruct): void {
  const stack = Stack.of(root);
  const aspect: IAspect = {
    visit: (node) => {
      if (node === stack) keepReferenced(stack, root);
    },
  };
  Aspects.of(stack).add(aspect, { priority: AspectPriority.MUTATING });
}

/** A resource as CloudFormation will read it. */
interface Rendered {
  readonly Resources?: Record<string, unknown>;
}

/** Renders one resource; CfnResource renders itself this way for the stack's template. */
interface Renderable {
  _toCloudFormation(): object;
}

function keepReferenced(stack: Stack, root: IConstruct): void {
  const resources = stack.node
    .findAll()
    .filter((node): node is CfnResource => CfnResource.isCfnResource(node))
    .filter((resource) => Stack.of(resource) === stack);
  const byId = new Map(resources.map((resource) => [logicalIdOf(stack, resource), resource]));
  const pending = root.node
    .findAll()
    .filter((node): node is CfnResource => CfnResource.isCfnResource(node) && kept(node));
  const seen = new Set<CfnResource>(pending);
  for (let resource = pending.pop(); resource !== undefined; resource = pending.pop()) {
    for (const needed of needsOf(stack, resource, byId, resources)) {
      if (seen.has(needed)) continue;
      seen.add(needed);
      if (!kept(needed)) needed.applyRemovalPolicy(RemovalPolicy.RETAIN);
      pending.push(needed);
    }
  }
}

function kept(resource: CfnResource): boolean {
  return resource.cfnOptions.deletionPolicy === CfnDeletionPolicy.RETAIN;
}

function logicalIdOf(stack: Stack, resource: CfnResource): string {
  return String(stack.resolve(resource.logicalId));
}

/** What `resource` refers to in its template entry, and what it will depend on. */
function needsOf(
  stack: Stack,
  resource: CfnResource,
  byId: ReadonlyMap<string, CfnResource>,
  all: readonly CfnResource[],
): CfnResource[] {
  const rendered = stack.resolve(
    (resource as unknown as Renderable)._toCloudFormation(),
  ) as Rendered;
  const ids = new Set<string>();
  collectIds(rendered.Resources, ids);
  const needed = [...ids].flatMap((id) => {
    const found = byId.get(id);
    return found === undefined || found === resource ? [] : [found];
  });
  // Dependencies between constructs become DependsOn of every resource beneath them only when
  // the app is prepared, after the aspects: follow them here as CloudFormation will see them.
  for (
    let scope: IConstruct | undefined = resource;
    scope !== undefined;
    scope = scope.node.scope
  ) {
    for (const dependency of scope.node.dependencies) {
      for (const target of all) {
        if (target !== resource && isUnder(target, dependency)) needed.push(target);
      }
    }
  }
  return needed;
}

function isUnder(node: IConstruct, scope: IConstruct): boolean {
  return node.node.scopes.includes(scope);
}

/** Every logical id a rendered value names: Ref, Fn::GetAtt, `${Id}` in Fn::Sub, DependsOn. */
function collectIds(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectIds(item, into);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'Ref' && typeof inner === 'string') into.add(inner);
    else if (key === 'Fn::GetAtt' && Array.isArray(inner) && typeof inner[0] === 'string') {
      into.add(inner[0]);
    } else if (key === 'Fn::Sub') {
      const text = Array.isArray(inner) ? inner[0] : inner;
      if (typeof text === 'string') {
        for (const match of text.matchAll(/\$\{([A-Za-z0-9]+)(?:\.[^}]*)?\}/g)) {
          if (match[1] !== undefined) into.add(match[1]);
        }
      }
    } else if (key === 'DependsOn') {
      for (const id of [inner].flat()) if (typeof id === 'string') into.add(id);
    }
    collectIds(inner, into);
  }
}
