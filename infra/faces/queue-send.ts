/**
 * Sending to a queue: what aws-cdk-lib's `grantSendMessages` grants, but on a queue under a KMS
 * key only the two key actions SQS uses for a sender (kms:GenerateDataKey for the message's
 * data key, kms:Decrypt to reuse a cached one), as AWS's SQS key-management page names them,
 * instead of `kms:GenerateDataKey*` and `kms:ReEncrypt*`, which cdk-nag's AwsSolutions-IAM5
 * refuses. The actions are limited to SQS's use of the key (`kms:ViaService`).
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sqs from 'aws-cdk-lib/aws-sqs';

export function grantSendTo(queue: sqs.IQueue, grantee: iam.IGrantable): void {
  const principal = grantee.grantPrincipal;
  principal.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
      resources: [queue.queueArn],
    }),
  );
  const key = queue.encryptionMasterKey;
  if (key === undefined) return;
  principal.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
      resources: [key.keyArn],
      conditions: {
        StringEquals: { 'kms:ViaService': `sqs.${queue.stack.region}.amazonaws.com` },
      },
    }),
  );
}
