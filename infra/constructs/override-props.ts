/**
 * The override props (`functionProps`, `queueProps`) as the plain data the deployment's checks
 * read (deployment/overrides.ts): what they set that Lambda or SQS would judge at deploy. A
 * figure that is a token is left to the deploy, as synthesis cannot read it.
 */
import { type Duration, Token } from 'aws-cdk-lib';
import type { Overrides } from '../deployment/overrides.js';
import type { EchoMqProps } from './echomq-props.js';

/** `functionProps` fields the construct sets itself, and its prop that sets each. */
const OWNED: Readonly<Record<string, string>> = {
  logRetention:
    "options.logRetentionDays (each function's log group is the construct's, with that retention)",
};

const seconds = (duration: Duration | undefined): number | undefined =>
  duration === undefined || duration.isUnresolved() ? undefined : duration.toSeconds();

const known = (value: number | undefined): number | undefined =>
  value === undefined || Token.isUnresolved(value) ? undefined : value;

export function overridesOf(props: EchoMqProps): Overrides {
  const fn = props.functionProps ?? {};
  const queue = props.queueProps;
  return {
    functionTimeoutSeconds: seconds(fn.timeout),
    runtime: fn.runtime?.name,
    reservedConcurrency: known(fn.reservedConcurrentExecutions),
    owned: Object.entries(OWNED)
      .filter(([prop]) => prop in fn && fn[prop as keyof typeof fn] !== undefined)
      .map(([prop, use]) => ({ prop, use })),
    ...(queue === undefined
      ? {}
      : {
          queue: {
            visibilityTimeoutSeconds: seconds(queue.visibilityTimeout),
            maxReceiveCount: known(queue.deadLetterQueue?.maxReceiveCount),
            retentionSeconds: seconds(queue.retentionPeriod),
          },
        }),
  };
}
