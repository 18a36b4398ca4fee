/**
 * How long one message of the SQS face's queue can come back (docs/deploy.md,
 * "Acknowledged writes"), read where the deployment does not say it: from a `Queue` of the same app
 * (its visibility timeout, its redrive policy's maxReceiveCount, its retention, as it will be
 * deployed), or from `sqs.redelivery` for an imported queue, whose figures are not known at
 * synthesis. The duplicate window is then held to the one rule of deployment/sqs.ts, as for the
 * queues the construct makes.
 */
import { type Duration, Token } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Redelivery } from '../deployment/sqs.js';

/** An imported queue's redelivery figures, as they are set on it. */
export interface EchoMqRedelivery {
  /** The queue's visibility timeout. */
  readonly visibilityTimeout: Duration;
  /**
   * Receives before its redrive policy moves a message to the DLQ.
   * @default no redrive policy
   */
  readonly maxReceiveCount?: number;
  /**
   * How long the queue keeps a message.
   * @default 4 days, SQS's default
   */
  readonly retentionPeriod?: Duration;
}

/** SQS's defaults for a queue that does not set them. */
const SQS_DEFAULT_VISIBILITY_SECONDS = 30;
const SQS_DEFAULT_RETENTION_SECONDS = 345_600;

const OWN_NAMES = { visibility: 'its visibility timeout', receives: 'its maxReceiveCount' };

/** The figures of `queue`, or the problem that keeps them from being known. */
export function redeliveryOf(
  queue: sqs.IQueue,
  given: EchoMqRedelivery | undefined,
): Redelivery | string {
  const name = `queue ${queue.node.path}`;
  if (queue instanceof sqs.Queue) {
    if (given !== undefined) {
      return `sqs.redelivery is for an imported queue: ${name} is a Queue of this app, whose own attributes are read.`;
    }
    const cfn = queue.node.defaultChild as sqs.CfnQueue;
    const visibility = cfn.visibilityTimeout ?? SQS_DEFAULT_VISIBILITY_SECONDS;
    const retention = cfn.messageRetentionPeriod ?? SQS_DEFAULT_RETENTION_SECONDS;
    const receives = queue.deadLetterQueue?.maxReceiveCount;
    if ([visibility, retention, receives ?? 0].some((value) => Token.isUnresolved(value))) {
      return `${name}'s visibility timeout, retention and maxReceiveCount must be known at synthesis (not tokens), so that dedupeTtlMs (EMQ_DEDUPE_TTL_MS) can be checked against them.`;
    }
    return {
      queue: name,
      names: OWN_NAMES,
      visibilityTimeoutSeconds: visibility,
      maxReceiveCount: receives,
      retentionSeconds: retention,
    };
  }
  if (given === undefined) {
    return `${name} is imported: give sqs.redelivery (its visibility timeout, maxReceiveCount and retention), so that dedupeTtlMs (EMQ_DEDUPE_TTL_MS) can be checked against the span over which it delivers a message again.`;
  }
  return {
    queue: name,
    names: {
      visibility: 'sqs.redelivery.visibilityTimeout',
      receives: 'sqs.redelivery.maxReceiveCount',
    },
    visibilityTimeoutSeconds: given.visibilityTimeout.toSeconds(),
    maxReceiveCount: given.maxReceiveCount,
    retentionSeconds: given.retentionPeriod?.toSeconds() ?? SQS_DEFAULT_RETENTION_SECONDS,
  };
}
