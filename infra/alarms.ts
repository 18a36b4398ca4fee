/**
 * The alarms an operator needs first: something reached the DLQ, a function failed or was
 * throttled, the API answered 5xx. Each notifies the SNS topic when one is configured.
 */
import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface EchoMqAlarmsProps {
  readonly functions: Readonly<Record<string, lambda.IFunction>>;
  readonly deadLetters: sqs.IQueue;
  readonly stage: apigw.HttpStage;
  /** SNS topic the alarms notify. Default: none. */
  readonly topicArn?: string | undefined;
}

const PERIOD = Duration.minutes(5);

export class EchoMqAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: EchoMqAlarmsProps) {
    super(scope, id);
    this.add(
      'DeadLettersNotEmpty',
      'Messages wait in the DLQ: permanently failed records or records SQS gave up on.',
      props.deadLetters.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
    );
    for (const [name, fn] of Object.entries(props.functions)) {
      this.add(
        `${name}Errors`,
        `The ${name} function failed.`,
        fn.metricErrors({ period: PERIOD }),
      );
      this.add(
        `${name}Throttles`,
        `The ${name} function was throttled.`,
        fn.metricThrottles({ period: PERIOD }),
      );
    }
    this.add(
      'Api5xx',
      'The HTTP API answered 5xx (Valkey unavailable or refusing, or a function failure).',
      props.stage.metricServerError({ period: PERIOD, statistic: 'Sum' }),
    );

    if (props.topicArn !== undefined) {
      const action = new SnsAction(sns.Topic.fromTopicArn(this, 'Topic', props.topicArn));
      for (const alarm of this.alarms) alarm.addAlarmAction(action);
    }
  }

  private add(id: string, description: string, metric: cloudwatch.IMetric): void {
    this.alarms.push(
      new cloudwatch.Alarm(this, id, {
        alarmDescription: `echomq-lambda: ${description}`,
        metric,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
  }
}
