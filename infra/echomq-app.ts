/**
 * The CDK app of echomq-lambda: settings from context, every problem reported at once, one
 * stack, and the AwsSolutions checks of cdk-nag run at synthesis.
 */
import { App, type AppProps, type Environment, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { missingBundles } from './bundles.js';
import { settingsFromContext } from './context.js';
import { InvalidSettingsError, resolveSettings } from './settings.js';
import { EchoMqStack } from './stack.js';

export interface EchoMqAppOptions extends AppProps {
  /** Where the stack deploys. Default: CDK_DEFAULT_ACCOUNT/REGION when both are set, else environment-agnostic. */
  readonly env?: Environment | undefined;
}

export function createEchoMqApp(options: EchoMqAppOptions = {}): { app: App; stack: EchoMqStack } {
  const { env = defaultEnvironment(), ...appProps } = options;
  const app = new App(appProps);
  const fromContext = settingsFromContext(
    (key) => app.node.tryGetContext(key),
    Object.keys(app.node.getAllContext()),
  );
  const { settings, problems } = resolveSettings(fromContext.settings);
  const all = [...fromContext.problems, ...problems, ...missingBundles(settings.bundleDir)];
  if (all.length > 0) throw new InvalidSettingsError(all);

  const stack = new EchoMqStack(app, fromContext.stackName, {
    settings: fromContext.settings,
    ...(env === undefined ? {} : { env }),
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}

function defaultEnvironment(): Environment | undefined {
  const account = process.env.CDK_DEFAULT_ACCOUNT;
  const region = process.env.CDK_DEFAULT_REGION;
  // Without credentials the CLI knows no account: synthesize environment-agnostic (no lookups).
  return account && region ? { account, region } : undefined;
}
