// Small readers over a synthesized template, so assertions name what they check.
import type { Template } from 'aws-cdk-lib/assertions';
import { BUNDLE_HANDLER } from '../../../infra/deployment/bundles.js';

export interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly DependsOn?: string[];
  readonly UpdatePolicy?: Record<string, unknown>;
}

/** Resources of one type, by logical id. */
export function resourcesOf(template: Template, type: string): Record<string, Resource> {
  return template.findResources(type) as Record<string, Resource>;
}

/** The single resource of a type whose logical id contains `hint`. */
export function onlyResource(
  template: Template,
  type: string,
  hint = '',
): [id: string, resource: Resource] {
  const found = Object.entries(resourcesOf(template, type)).filter(([id]) => id.includes(hint));
  const [first, ...rest] = found;
  if (first === undefined || rest.length > 0) {
    throw new Error(`expected one ${type} matching '${hint}', found ${found.length}`);
  }
  return first;
}

/** `{ "Ref": id }` */
export const ref = (id: string) => ({ Ref: id });
/** `{ "Fn::GetAtt": [id, attribute] }` */
export const getAtt = (id: string, attribute: string) => ({ 'Fn::GetAtt': [id, attribute] });

/**
 * The functions deployed from the project's bundles that connect to the cache: the HTTP, SQS
 * and fence functions (not the CDK provider's dispatcher, nor the rotation function, which
 * calls only AWS APIs: rotationFunctions).
 */
export function projectFunctions(template: Template): Record<string, Resource> {
  return Object.fromEntries(
    Object.entries(resourcesOf(template, 'AWS::Lambda::Function')).filter(
      ([, fn]) => fn.Properties.Handler === BUNDLE_HANDLER && !isRotation(fn),
    ),
  );
}

/** The password rotation functions (infra/constructs/credential-rotation.ts). */
export function rotationFunctions(template: Template): Record<string, Resource> {
  return Object.fromEntries(
    Object.entries(resourcesOf(template, 'AWS::Lambda::Function')).filter(([, fn]) =>
      isRotation(fn),
    ),
  );
}

function isRotation(fn: Resource): boolean {
  return 'ROTATED_SERVICE' in environmentOf(fn);
}

/** The environment variables of a function. */
export function environmentOf(fn: Resource): Record<string, unknown> {
  const environment = fn.Properties.Environment as { Variables?: Record<string, unknown> };
  return environment?.Variables ?? {};
}

/**
 * A user data (or any intrinsic) as one text: literal parts as they are, references as
 * `{Ref:id}`, other intrinsics as their JSON (the template keeps them unresolved).
 */
export function flattenIntrinsics(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(flattenIntrinsics).join('');
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    const [name, inner] = entries[0] ?? [];
    if (entries.length === 1 && name === 'Fn::Base64') return flattenIntrinsics(inner);
    if (entries.length === 1 && name === 'Fn::Join') {
      const [separator, parts] = inner as [string, unknown[]];
      return parts.map(flattenIntrinsics).join(separator);
    }
    if (entries.length === 1 && name === 'Ref') return `{Ref:${String(inner)}}`;
    return JSON.stringify(value);
  }
  return String(value);
}
