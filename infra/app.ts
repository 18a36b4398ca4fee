/** `cdk synth` / `cdk deploy` entry point (cdk.json "app"). */
import { createEchoMqApp } from './echomq-app.js';
import { InvalidSettingsError } from './settings.js';

try {
  createEchoMqApp().app.synth();
} catch (error) {
  if (!(error instanceof InvalidSettingsError)) throw error;
  // The problems are the whole message; a stack trace would only bury them.
  console.error(error.message);
  process.exitCode = 1;
}
