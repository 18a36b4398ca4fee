/** `cdk synth` / `cdk deploy` entry point (cdk.json "app"). */

import { InvalidDeploymentError } from '../deployment/deployment.js';
import { createEchoMqApp } from './echomq-app.js';
import { synthSummary } from './synth-summary.js';

try {
  const { app, stack } = createEchoMqApp();
  const assembly = app.synth();
  // stderr: the CLI reads nothing there, and --quiet keeps stdout empty.
  console.error(synthSummary(assembly, stack));
} catch (error) {
  if (!(error instanceof InvalidDeploymentError)) throw error;
  // The problems are the whole message; a stack trace would only bury them.
  console.error(error.message);
  process.exitCode = 1;
}
