/**
 * The SQS face's queues, where the construct makes them: the source queue and its dead-letter
 * queue, both encrypted and reachable over TLS only, kept when the stack is deleted (pending
 * records are jobs not yet admitted) unless the removal policy says otherwise. The DLQ takes
 * what SQS gives up on after maxReceiveCount receives and what the function itself sends as
 * permanently failed (EMQ_DLQ_URL). `queueProps` and `deadLetterQueueProps` are merged over
 * these defaults (the AWS Solutions Constructs manner); the construct then checks the queue it
 * built against the duplicate window.
 */
import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ResolvedDeployment } from '../deployment/deployment.js';
import { SOURCE_RETENTION_SECONDS } from '../deployment/sqs.js';

export interface EchoMqQueuesProps {
  readonly deployment: ResolvedDeployment;
  readonly removalPolicy: RemovalPolicy;
  /**
   * The user's source queue.
   * @default a new one
   */
  readonly source?: sqs.IQueue | undefined;
  /**
   * The user's DLQ.
   * @default a new one
   */
  readonly deadLetters?: sqs.IQueue | undefined;
  /** Merged over the new source queue's defaults. */
  readonly queueProps?: sqs.QueueProps | undefined;
  /** Merged over the new DLQ's defaults. */
  readonly deadLetterQueueProps?: sqs.QueueProps | undefined;
}

export class EchoMqQueues extends Construct {
  readonly source: sqs.IQueue;
  readonly deadLetters: sqs.IQueue;

  constructor(scope: Construct, id: string, props: EchoMqQueuesProps) {
    super(scope, id);
    const sqsOptions = props.deployment.sqs;
    // A FIFO source redrives only into a FIFO DLQ; the function sends dead letters with their
    // group id and messageId as the deduplication id (functions/sqs/dlq.ts).
    const fifo = sqsOptions.fifo ? { fifo: true } : {};
    this.deadLetters =
      props.deadLetters ??
      new sqs.Queue(this, 'DeadLetters', {
        ...fifo,
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        // The longest SQS keeps anything: time for an operator to look and redrive.
        retentionPeriod: Duration.days(14),
        removalPolicy: props.removalPolicy,
        ...props.deadLetterQueueProps,
      });
    if (this.deadLetters instanceof sqs.Queue && props.deadLetters === undefined) {
      Validations.of(this.deadLetters).acknowledge({
        id: 'Serverless-SQSRedrivePolicy',
        reason:
          'This is the dead-letter queue: its messages stay 14 days for an operator to read and redrive; a DLQ of its own would only move them.',
      });
    }
    this.source =
      props.source ??
      new sqs.Queue(this, 'Source', {
        ...fifo,
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        visibilityTimeout: Duration.seconds(sqsOptions.visibilityTimeoutSeconds),
        retentionPeriod: Duration.seconds(SOURCE_RETENTION_SECONDS),
        deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: sqsOptions.maxReceiveCount },
        removalPolicy: props.removalPolicy,
        ...props.queueProps,
      });
  }
}
