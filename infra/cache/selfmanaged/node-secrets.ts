/**
 * The secrets of a self-managed cluster: one `{"username","password"}` per ACL user the nodes
 * write into their ACL file at boot, and the TLS material node 0 makes at first boot. The
 * functions' and installer's users rotate on the nodes as the admin user (the rotation function
 * reads the admin's secret; constructs/credential-rotation.ts).
 */
import { SecretValue, Validations } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { APP_USERNAME, INSTALLER_USERNAME } from '../rbac.js';
import type { NodeRotation } from '../rotation.js';
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
  /** The functions' and installer's users, changed on the nodes as the admin. */
  readonly rotation: NodeRotation;
}

/** Why the admin's password has no rotation schedule (cdk-nag SMG4). */
const ADMIN_ROTATION =
  "The admin's password is also each node's replication password (masterauth, written into its configuration at boot), which an ACL rotation does not change: rotate it by putting a new secret value and rebooting the nodes one at a time (docs/operations.md, Rotating credentials). The functions' and installer's users rotate on the schedule.";

export function createNodeSecrets(scope: Construct): NodeSecrets {
  const user = (id: string, username: string, description: string) =>
    userSecret(scope, id, { username, description });
  const credentials = user('Credentials', APP_USERNAME, 'Valkey ACL user of the functions');
  const installerCredentials = user(
    'InstallerCredentials',
    INSTALLER_USERNAME,
    'Valkey ACL user of the installer (wire identity, library)',
  );
  const adminCredentials = userSecret(scope, 'AdminCredentials', {
    username: ADMIN_USERNAME,
    description: 'Valkey admin user (replication, cluster creation, operators)',
    rotation: ADMIN_ROTATION,
  });
  const secrets = {
    credentials,
    installerCredentials,
    adminCredentials,
    rotation: {
      service: 'nodes',
      users: [
        { secret: credentials, userId: APP_USERNAME },
        { secret: installerCredentials, userId: INSTALLER_USERNAME },
      ],
      admin: adminCredentials,
    } satisfies NodeRotation,
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
