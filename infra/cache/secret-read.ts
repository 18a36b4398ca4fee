/**
 * Reading a cache user's secret: `secretsmanager:GetSecretValue` on it and, where the secret is
 * under a KMS key of the team's (`Secret.fromSecretAttributes({ secretCompleteArn,
 * encryptionKey })`), `kms:Decrypt` on that key through Secrets Manager only (`kms:ViaService`).
 * aws-cdk-lib's `grantRead` asks the key's policy for the decrypt, which an imported key never
 * takes; in the reader's own policy no key-policy edit is needed where the key policy delegates
 * to IAM, as AWS's default key policy does (docs/kms.md).
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';

export function grantSecretRead(secret: secretsmanager.ISecret, grantee: iam.IGrantable): void {
  secret.grantRead(grantee);
  const key = secret.encryptionKey;
  if (key === undefined) return;
  grantee.grantPrincipal.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['kms:Decrypt'],
      resources: [key.keyArn],
      conditions: {
        StringEquals: {
          'kms:ViaService': `secretsmanager.${secret.stack.region}.amazonaws.com`,
        },
      },
    }),
  );
}
