/**
 * The MemoryDB users of the cluster: the functions' user and the installer's user, each with
 * its own password in its own Secrets Manager secret, in one ACL. A MemoryDB user's name is
 * account-wide, so both carry the cluster's prefix; each secret holds that name. With
 * `cacheAuth=iam` the functions' user is IAM-enabled instead (tokens, no password, no secret);
 * the installer keeps its password. The ACL holds no other user: nothing else can log in.
 */
import * as memorydb from 'aws-cdk-lib/aws-memorydb';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { CacheAuth } from '../auth.js';
import { type CacheRotation, rotatedUsers } from '../rotation.js';
import { userSecret } from '../user-secret.js';
import { MEMORYDB_INSTALLER_ACCESS_STRING } from './spec.js';

export interface MemoryDbUsers {
  readonly credentials: secretsmanager.Secret | undefined;
  readonly installerCredentials: secretsmanager.Secret;
  readonly acl: memorydb.CfnACL;
  /** The functions' user; IAM-enabled with `cacheAuth=iam`. */
  readonly appUser: memorydb.CfnUser;
  /** The password users whose secrets rotate (MemoryDB `UpdateUser`, by user name). */
  readonly rotation: CacheRotation;
}

export function createMemoryDbUsers(
  scope: Construct,
  prefix: string,
  options: { readonly accessString: string; readonly cacheAuth: CacheAuth },
): MemoryDbUsers {
  const user = (id: string, username: string, whose: string) =>
    userSecret(scope, id, {
      username,
      description: `MemoryDB user of ${whose}`,
    });
  const appName = `${prefix}-app`;
  const installerName = `${prefix}-installer`;
  const credentials =
    options.cacheAuth === 'iam' ? undefined : user('Credentials', appName, 'the functions');
  const installerCredentials = user(
    'InstallerCredentials',
    installerName,
    'the installer (wire identity, library)',
  );
  const appUser = new memorydb.CfnUser(scope, credentials === undefined ? 'IamUser' : 'AppUser', {
    userName: appName,
    accessString: options.accessString,
    authenticationMode:
      credentials === undefined
        ? { Type: 'iam' }
        : {
            Type: 'password',
            Passwords: [credentials.secretValueFromJson('password').unsafeUnwrap()],
          },
  });
  const installerUser = new memorydb.CfnUser(scope, 'InstallerUser', {
    userName: installerName,
    accessString: MEMORYDB_INSTALLER_ACCESS_STRING,
    authenticationMode: {
      Type: 'password',
      Passwords: [installerCredentials.secretValueFromJson('password').unsafeUnwrap()],
    },
  });
  const acl = new memorydb.CfnACL(scope, 'Acl', {
    aclName: prefix,
    userNames: [appName, installerName],
  });
  acl.addResourceDependency(appUser);
  acl.addResourceDependency(installerUser);
  // MemoryDB's user API names a user by its name.
  const rotation: CacheRotation = {
    service: 'memorydb',
    users: rotatedUsers([
      [credentials, appName, appUser.attrArn],
      [installerCredentials, installerName, installerUser.attrArn],
    ]),
  };
  return { credentials, installerCredentials, acl, appUser, rotation };
}
