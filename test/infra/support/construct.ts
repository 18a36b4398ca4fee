// Synthesizes one EchoMq in a stack of a user's own, from stand-in bundles.
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { EchoMq, type EchoMqProps } from '../../../infra/index.js';
import { standInBundles, TEST_ENV, temporaryDir } from './synth.js';

export interface Composed {
  readonly stack: Stack;
  readonly echoMq: EchoMq;
  readonly template: Template;
}

/**
 * A stack with a VPC of the user's (private subnets with a NAT) and one EchoMq built from
 * `props`; `then` adds what the user's app does with it before the template is read.
 */
export function composeEchoMq(
  props: (stack: Stack, vpc: ec2.IVpc) => Omit<EchoMqProps, 'vpc'> & { vpc?: ec2.IVpc },
  then: (echoMq: EchoMq, stack: Stack) => void = () => {},
): Composed {
  const app = new App({ outdir: temporaryDir('emq-cdk-out-') });
  const stack = new Stack(app, 'UserStack', { env: TEST_ENV });
  const vpc = new ec2.Vpc(stack, 'UserVpc', { maxAzs: 2, natGateways: 1 });
  vpc.addFlowLog('FlowLog', { trafficType: ec2.FlowLogTrafficType.REJECT });
  const given = props(stack, vpc);
  const echoMq = new EchoMq(stack, 'EchoMq', {
    vpc,
    ...given,
    options: { bundleDir: standInBundles(), ...given.options },
  });
  then(echoMq, stack);
  return { stack, echoMq, template: Template.fromStack(stack) };
}
