/**
 * Encrypting every log group the construct makes (functions, the installer's framework, the
 * rotation function, API access logs) with the team's KMS key (`options.logGroupEncryptionKey`).
 * One pass over the finished tree, so no log group is left out, whoever made it. CloudWatch Logs
 * uses the key itself, so the key's policy must let the service principal of the region use it
 * for this account's log groups (AWS's "Encrypt log data in CloudWatch Logs using AWS KMS"): a
 * key of the same app gets that statement here; an imported key's policy cannot be changed from
 * this stack and must hold it already (docs/kms.md).
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

export function encryptLogGroups(scope: Construct, key: kms.IKey | undefined): void {
  if (key === undefined) return;
  for (const construct of scope.node.findAll()) {
    if (construct instanceof logs.CfnLogGroup) construct.kmsKeyId = key.keyArn;
  }
  const stack = Stack.of(scope);
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      principals: [new iam.ServicePrincipal(`logs.${stack.region}.amazonaws.com`)],
      actions: [
        'kms:Encrypt*',
        'kms:Decrypt*',
        'kms:ReEncrypt*',
        'kms:GenerateDataKey*',
        'kms:Describe*',
      ],
      resources: ['*'],
      conditions: {
        ArnLike: {
          'kms:EncryptionContext:aws:logs:arn': stack.formatArn({
            service: 'logs',
            resource: 'log-group',
            resourceName: '*',
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        },
      },
    }),
    // An imported key ignores the statement; its policy is the team's (docs/kms.md).
    true,
  );
}
