/**
 * The SQS face's queues: the source queue and its dead-letter queue, both encrypted and
 * reachable over TLS only. The DLQ takes what SQS gives up on after maxReceiveCount receives and
 * what the function itself sends as permanently failed (EMQ_DLQ_URL).
 */
import { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ResolvedSettings } from './settings.js';

export interface EchoMqQueuesProps {
  readonly settings: ResolvedSettings;
}

export class EchoMqQueues extends Construct {
  readonly source: sqs.Queue;
  readonly deadLetters: sqs.Queue;

  constructor(scope: Construct, id: string, props: EchoMqQueuesProps) {
    super(scope, id);
    const { sqs: settings } = props.settings;
    // A FIFO source redrives only into a FIFO DLQ; the function sends dead letters with their
    // group id and messageId as the deduplication id (functions/sqs/dlq.ts).
    const fifo = settings.fifo ? { fifo: true } : {};
    this.deadLetters = new sqs.Queue(this, 'DeadLetters', {
      ...fifo,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // The longest SQS keeps anything: time for an operator to look and redrive.
      retentionPeriod: Duration.days(14),
    });
    this.source = new sqs.Queue(this, 'Source', {
      ...fifo,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(settings.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: settings.maxReceiveCount },
    });
  }
}
