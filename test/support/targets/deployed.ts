/**
 * The settings the stack deploys for a cache kind, read from its synthesized template: each
 * function's environment (HTTP, SQS, the fence installer) and the ACL users (names, access
 * strings, the secret holding each one's password). environmentFor() swaps the values only
 * the cloud has for the local target's, so a test runs the product exactly as deployed:
 * - EMQ_URL: the target's proxies (rediss:// where it speaks TLS); EMQ_CLUSTER must agree;
 * - EMQ_SECRET_ARN: a Ref to a secret becomes an ARN the secrets stand-in answers for
 *   (secrets-stand-in.ts) with that user's local password; a literal ARN stays;
 * - EMQ_TLS_CA: the target's CA where the template sets it (self-managed), and where it does
 *   not but the target speaks TLS (ElastiCache trusts Amazon's CAs, which have no local
 *   stand-in) the CA is added, as EMQ_TLS_CA or, for a child process, NODE_EXTRA_CA_CERTS;
 * - EMQ_DLQ_URL: the caller's queue URL (a Ref in the template).
 * Any other value the template leaves unresolved fails loudly rather than reach the product.
 * Written against what the template holds, not against infra's constants.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import type { CacheKind } from '../../../infra/cache/registry.js';
import type { EchoMqDeployment } from '../../../infra/deployment/deployment.js';
import { synthStack } from '../../infra/support/synth.js';
import {
  environmentOf,
  flattenIntrinsics,
  projectFunctions,
  resourcesOf,
} from '../../infra/support/template.js';
import type { TargetUser } from './acl-file.js';
import type { Target } from './target.js';
import { stackTemplate } from './templates.js';

export type FunctionName = 'http' | 'sqs' | 'fence';
const FUNCTION_HINTS: Readonly<Record<FunctionName, string>> = {
  http: 'Http',
  sqs: 'Sqs',
  fence: 'Fence',
};

export interface DeployedUser {
  readonly name: string;
  readonly rules: string;
  /** Logical id of the secret holding the password; undefined where none does. */
  readonly secret: string | undefined;
}

export interface Deployed {
  readonly kind: CacheKind;
  /** Each function's Environment.Variables as synthesized (intrinsics unresolved). */
  readonly environments: Readonly<Record<FunctionName, Readonly<Record<string, unknown>>>>;
  readonly users: readonly DeployedUser[];
  /** Secret logical id -> the user name its template holds. */
  readonly secretUsers: ReadonlyMap<string, string>;
}

/** A complete-looking ARN for a secret of the template, answered by the stand-in. */
export function standInArn(logicalId: string): string {
  return `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${logicalId}-AbCdEf`;
}

const cache = new Map<CacheKind, Deployed>();

/** What the default stack of `kind` deploys (read once per process); `settings` for a variant. */
export function deployed(kind: CacheKind, settings?: EchoMqDeployment): Deployed {
  if (settings !== undefined) return read(kind, synthStack(settings).template);
  let found = cache.get(kind);
  if (found === undefined) {
    found = read(kind, stackTemplate(kind));
    cache.set(kind, found);
  }
  return found;
}

/** The deployed users as startTarget wants them (passwords made by the target). */
export function deployedUsers(settings: Deployed): TargetUser[] {
  return settings.users.map((user) => ({ name: user.name, rules: user.rules }));
}

export interface EnvironmentOptions {
  /** How the product is told to trust the target's CA where the template does not say. Default EMQ_TLS_CA. */
  readonly trust?: 'EMQ_TLS_CA' | 'NODE_EXTRA_CA_CERTS';
  /** EMQ_DLQ_URL for the SQS function (the template's is a Ref). */
  readonly dlqUrl?: string;
}

export interface LocalEnvironment {
  readonly env: Record<string, string>;
  /** Variables the template does not have, added for the local target (the CA to trust). */
  readonly added: readonly string[];
}

export function environmentFor(
  settings: Deployed,
  fn: FunctionName,
  target: Target,
  options: EnvironmentOptions = {},
): LocalEnvironment {
  const env: Record<string, string> = {};
  const added: string[] = [];
  const ca = target.tls?.ca.toString('base64');
  for (const [name, value] of Object.entries(settings.environments[fn])) {
    if (name === 'EMQ_URL')
      env[name] = (target.cluster ? target.urls : target.urls.slice(0, 1)).join(',');
    else if (name === 'EMQ_SECRET_ARN')
      env[name] = typeof value === 'string' ? value : standInArn(refOf(name, value));
    else if (name === 'EMQ_TLS_CA' && ca !== undefined) env[name] = ca;
    else if (name === 'EMQ_DLQ_URL' && options.dlqUrl !== undefined) env[name] = options.dlqUrl;
    else if (typeof value === 'string') env[name] = value;
    else
      throw new Error(
        `${fn}'s ${name} is ${JSON.stringify(value)} in the template: give a local value`,
      );
  }
  if (env.EMQ_CLUSTER !== String(target.cluster)) {
    throw new Error(
      `${fn} is deployed with EMQ_CLUSTER=${env.EMQ_CLUSTER}; ${target.name} is ${target.cluster ? '' : 'not '}a cluster`,
    );
  }
  if (target.tls !== undefined && env.EMQ_TLS_CA === undefined) {
    const trust = options.trust ?? 'EMQ_TLS_CA';
    env[trust] = trust === 'EMQ_TLS_CA' ? (ca as string) : target.tls.caFile;
    added.push(trust);
  }
  return { env, added };
}

function read(kind: CacheKind, template: Template): Deployed {
  const functions = Object.entries(projectFunctions(template));
  const environments = Object.fromEntries(
    (Object.keys(FUNCTION_HINTS) as FunctionName[]).map((fn) => {
      const found = functions.filter(([id]) => id.includes(FUNCTION_HINTS[fn]));
      if (found.length !== 1) throw new Error(`expected one ${fn} function, found ${found.length}`);
      return [fn, environmentOf((found[0] as (typeof found)[number])[1])];
    }),
  ) as Record<FunctionName, Record<string, unknown>>;
  return { kind, environments, users: usersOf(template), secretUsers: secretUsersOf(template) };
}

/** ElastiCache RBAC users, MemoryDB users, or the self-managed nodes' users from their user data. */
function usersOf(template: Template): DeployedUser[] {
  const rbac = Object.values(resourcesOf(template, 'AWS::ElastiCache::User')).map((user) => {
    const { UserName, AccessString, Passwords } = user.Properties;
    if (typeof UserName !== 'string' || typeof AccessString !== 'string') {
      throw new Error('an RBAC user without a literal name or access string');
    }
    const secret = /\{Ref:([A-Za-z0-9]+)\}/.exec(flattenIntrinsics(Passwords))?.[1];
    return { name: UserName, rules: AccessString, secret };
  });
  if (rbac.length > 0) return rbac;
  // MemoryDB users: the password sits in AuthenticationMode; an IAM user has none.
  const memoryDb = Object.values(resourcesOf(template, 'AWS::MemoryDB::User')).map((user) => {
    const { UserName, AccessString, AuthenticationMode } = user.Properties;
    if (typeof UserName !== 'string' || typeof AccessString !== 'string') {
      throw new Error('a MemoryDB user without a literal name or access string');
    }
    const secret = /\{Ref:([A-Za-z0-9]+)\}/.exec(flattenIntrinsics(AuthenticationMode))?.[1];
    return { name: UserName, rules: AccessString, secret };
  });
  if (memoryDb.length > 0) return memoryDb;
  const instances = Object.values(resourcesOf(template, 'AWS::EC2::Instance'));
  if (instances.length === 0) return [];
  const secretUsers = secretUsersOf(template);
  const [first] = instances.map((instance) => flattenIntrinsics(instance.Properties.UserData));
  const setting = (name: string): string => {
    const value = new RegExp(`^${name}='([^']*)'$`, 'm').exec(first ?? '')?.[1];
    if (value === undefined) throw new Error(`the nodes' user data has no ${name}`);
    return value;
  };
  return [
    ['EMQ_ACCESS_STRING', 'EMQ_APP_SECRET_ARN'],
    ['EMQ_INSTALLER_ACCESS_STRING', 'EMQ_INSTALLER_SECRET_ARN'],
  ].map(([rules, secretArn]) => {
    const secret = /^\{Ref:([A-Za-z0-9]+)\}$/.exec(setting(secretArn as string))?.[1];
    const name = secret === undefined ? undefined : secretUsers.get(secret);
    if (name === undefined) throw new Error(`${secretArn} names no secret with a user name`);
    return { name, rules: setting(rules as string), secret };
  });
}

function secretUsersOf(template: Template): Map<string, string> {
  const users = new Map<string, string>();
  for (const [id, secret] of Object.entries(resourcesOf(template, 'AWS::SecretsManager::Secret'))) {
    const generate = secret.Properties.GenerateSecretString as
      | { SecretStringTemplate?: unknown }
      | undefined;
    if (typeof generate?.SecretStringTemplate !== 'string') continue;
    const username = (JSON.parse(generate.SecretStringTemplate) as { username?: unknown }).username;
    if (typeof username === 'string') users.set(id, username);
  }
  return users;
}

function refOf(name: string, value: unknown): string {
  const ref = (value as { Ref?: unknown } | null)?.Ref;
  if (typeof ref !== 'string') throw new Error(`${name} is ${JSON.stringify(value)}, not a Ref`);
  return ref;
}
