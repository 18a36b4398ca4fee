/**
 * The secrets of a self-managed cluster: one `{"username","password"}` per ACL user the nodes
 * write into their ACL file at boot, and the TLS material node 0 makes at first boot.
 */
import { SecretValue, Validations } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { APP_USERNAME, INSTALLER_USERNAME } from '../rbac.js';
import { userSecret } from '../user-secret.js';

export { APP_USERNAME, INSTALLER_USERNAME };

/** The admin user: replication, cluster creation and operators. */
export const ADMIN_USERNAME = 'emq-admin';

export interface NodeSecrets {
  /** `{"username","password"}` of the functions' user. */
  readonly credentials: secretsmanager.Secret;
  /** `{"username","password"}` of the installer's user; readable by the installer and the nodes. */
  readonly installerCredentials: secretsmanager.Secret;
  /** `{"username","password"}` of the admin user. */
  readonly adminCredentials: secretsmanager.Secret;
  /** `{"ca","cert","key"}`, filled by node 0 at first boot. */
  readonly tlsMaterial: secretsmanager.Secret;
}

/** Why the nodes' user passwords have no rotation Lambda (cdk-nag SMG4). */
const ROTATION =
  'The nodes hash ACL passwords into their ACL file at boot; rotate by putting a new secret value and rebooting the nodes one at a time, not by a rotation Lambda.';

export function createNodeSecrets(scope: Construct): NodeSecrets {
  const user = (id: string, username: string, description: string) =>
    userSecret(scope, id, { username, description, rotation: ROTATION });
  const secrets = {
    credentials: user('Credentials', APP_USERNAME, 'Valkey ACL user of the functions'),
    installerCredentials: user(
      'InstallerCredentials',
      INSTALLER_USERNAME,
      'Valkey ACL user of the installer (wire identity, library)',
    ),
    adminCredentials: user(
      'AdminCredentials',
      ADMIN_USERNAME,
      'Valkey admin user (replication, cluster creation, operators)',
    ),
    tlsMaterial: new secretsmanager.Secret(scope, 'TlsMaterial', {
      description:
        'echomq-lambda: Valkey TLS CA, certificate and key, made by node 0 at first boot',
      // Empty until node 0 puts the material it made; nothing secret is in the template.
      secretStringValue: SecretValue.unsafePlainText('{}'),
    }),
  };
  Validations.of(secrets.tlsMaterial).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'The TLS material is a certificate pair valid for ten years that the nodes make once; a new CA also means a new function environment, so it changes by redeploying, not by rotation.',
  });
  return secrets;
}
