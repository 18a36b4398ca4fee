/**
 * The CDK app of echomq-lambda: the deployment from context, every problem reported at once, one
 * stack holding one EchoMq, and cdk-nag's AwsSolutions and Serverless checks run at synthesis.
 */
import { App, type AppProps, type Environment, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { deploymentFromContext } from '../deployment/context.js';
import { checkedDeployment } from '../deployment/deployment.js';
import { EchoMqAppStack } from './app-stack.js';

export interface EchoMqAppOptions extends AppProps {
  /**
   * Where the stack deploys.
   * @default CDK_DEFAULT_ACCOUNT/REGION when both are set, else environment-agnostic
   */
  readonly env?: Environment | undefined;
}

export function createEchoMqApp(options: EchoMqAppOptions = {}): {
  app: App;
  stack: EchoMqAppStack;
} {
  const { env = defaultEnvironment(), ...appProps } = options;
  const app = new App(appProps);
  const fromContext = deploymentFromContext(
    (key) => app.node.tryGetContext(key),
    Object.keys(app.node.getAllContext()),
  );
  checkedDeployment(fromContext.deployment, fromContext.problems);

  const stack = new EchoMqAppStack(app, fromContext.stackName, {
    deployment: fromContext.deployment,
    ...(env === undefined ? {} : { env }),
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  return { app, stack };
}

function defaultEnvironment(): Environment | undefined {
  const account = process.env.CDK_DEFAULT_ACCOUNT;
  const region = process.env.CDK_DEFAULT_REGION;
  // Without credentials the CLI knows no account: synthesize environment-agnostic (no lookups).
  return account && region ? { account, region } : undefined;
}
