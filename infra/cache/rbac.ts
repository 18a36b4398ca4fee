/**
 * The RBAC users of an ElastiCache cache (node-based or Serverless): the functions' user and
 * the installer's user, each with its own password in its own Secrets Manager secret, and a
 * switched-off `default` user, in one user group. With `cacheAuth=iam` the functions' user is
 * IAM-enabled instead (tokens, no password, no secret); the installer keeps its password.
 */
import { Names, Validations } from 'aws-cdk-lib';
import * as elasticache from 'aws-cdk-lib/aws-elasticache';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { CacheAuth } from './auth.js';
import { type CacheRotation, rotatedUsers } from './rotation.js';
import { userSecret } from './user-secret.js';

/** The RBAC user the functions connect as. */
export const APP_USERNAME = 'emq-app';
/** The RBAC user the installer (the deploy-time custom resource) connects as. */
export const INSTALLER_USERNAME = 'emq-installer';

export interface RbacUsers {
  /** `{"username","password"}` of the functions' user; none with `cacheAuth=iam`. */
  readonly credentials: secretsmanager.Secret | undefined;
  /** `{"username","password"}` of the installer's user; granted to the installer only. */
  readonly installerCredentials: secretsmanager.Secret;
  readonly userGroup: elasticache.CfnUserGroup;
  /** The functions' IAM-enabled user (`cacheAuth=iam`); its user name is its id. */
  readonly iamUser: elasticache.CfnUser | undefined;
  /** The password users whose secrets rotate: the functions' (but with IAM) and the installer's. */
  readonly rotation: CacheRotation;
}

export interface RbacRules {
  /** The functions' access string (the family the cache runs). */
  readonly accessString: string;
  /** The installer's access string (the same family's installer rules). */
  readonly installerAccessString: string;
  /**
   * How the functions authenticate.
   * @default `'password'`
   */
  readonly cacheAuth?: CacheAuth;
}

/** Creates the users and their group as children of `scope` (the cache construct). */
export function createRbacUsers(scope: Construct, rules: RbacRules): RbacUsers {
  const { accessString, installerAccessString, cacheAuth = 'password' } = rules;
  // User and group ids are account-wide names: derive them from the cache's path.
  const idPrefix = rbacIdPrefix(scope);
  const credentials =
    cacheAuth === 'iam'
      ? undefined
      : userSecret(scope, 'Credentials', {
          username: APP_USERNAME,
          description: 'Valkey RBAC user of the functions',
        });
  const installerCredentials = userSecret(scope, 'InstallerCredentials', {
    username: INSTALLER_USERNAME,
    description: 'Valkey RBAC user of the installer (wire identity, library)',
  });
  // Every user group must hold a user named `default`; this one is switched off, and a
  // Valkey user group admits only users with a password.
  const disabledDefault = new secretsmanager.Secret(scope, 'DisabledDefaultUserPassword', {
    description: 'echomq-lambda: password of the switched-off default Valkey user',
    generateSecretString: { passwordLength: 32, excludePunctuation: true },
  });
  Validations.of(disabledDefault).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      "The default user is switched off ('off -@all'): its password logs nobody in, so rotating it would change nothing. Every user that can log in rotates on the construct's schedule.",
  });
  const appUser =
    credentials === undefined
      ? createIamUser(scope, idPrefix, accessString)
      : new elasticache.CfnUser(scope, 'AppUser', {
          engine: 'valkey',
          userId: `${idPrefix}-app`,
          userName: APP_USERNAME,
          accessString,
          passwords: [credentials.secretValueFromJson('password').unsafeUnwrap()],
        });
  const iamUser = credentials === undefined ? appUser : undefined;
  const installerUser = new elasticache.CfnUser(scope, 'InstallerUser', {
    engine: 'valkey',
    userId: `${idPrefix}-installer`,
    userName: INSTALLER_USERNAME,
    accessString: installerAccessString,
    passwords: [installerCredentials.secretValueFromJson('password').unsafeUnwrap()],
  });
  const defaultUser = new elasticache.CfnUser(scope, 'DisabledDefaultUser', {
    engine: 'valkey',
    userId: `${idPrefix}-default`,
    userName: 'default',
    accessString: 'off -@all',
    passwords: [disabledDefault.secretValue.unsafeUnwrap()],
  });
  const userGroup = new elasticache.CfnUserGroup(scope, 'UserGroup', {
    engine: 'valkey',
    userGroupId: idPrefix,
    userIds: [appUser.userId, installerUser.userId, defaultUser.userId],
  });
  userGroup.addResourceDependency(appUser);
  userGroup.addResourceDependency(installerUser);
  userGroup.addResourceDependency(defaultUser);
  const rotation: CacheRotation = {
    service: 'elasticache',
    users: rotatedUsers([
      [credentials, appUser.userId, appUser.attrArn],
      [installerCredentials, installerUser.userId, installerUser.attrArn],
    ]),
  };
  return { credentials, installerCredentials, userGroup, iamUser, rotation };
}

/** ElastiCache accepts an IAM-enabled user only when its user name equals its user id. */
function createIamUser(
  scope: Construct,
  idPrefix: string,
  accessString: string,
): elasticache.CfnUser {
  const id = `${idPrefix}-iam`;
  return new elasticache.CfnUser(scope, 'IamUser', {
    engine: 'valkey',
    userId: id,
    userName: id,
    accessString,
    authenticationMode: { Type: 'iam' },
  });
}

/** A lowercase id, unique per stack and construct, that ElastiCache accepts ([a-z][a-z0-9-]*). */
export function rbacIdPrefix(scope: Construct): string {
  // The unique name keeps its hash at the end, so two stacks in one account never collide.
  const unique = Names.uniqueResourceName(scope, { maxLength: 24, separator: '-' });
  return `emq-${unique}`
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-');
}
