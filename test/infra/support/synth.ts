// Synthesizes the stack for template assertions, from stand-in bundles (no build, no bundling).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll } from 'vitest';
import { EchoMqAppStack, type EchoMqAppStackProps } from '../../../infra/app/app-stack.js';
import { BUNDLES } from '../../../infra/deployment/bundles.js';
import type { EchoMqDeployment } from '../../../infra/deployment/deployment.js';

/** A fixed environment, so nothing depends on the machine's AWS configuration. */
export const TEST_ENV = { account: '123456789012', region: 'eu-west-1' } as const;

const temporary: string[] = [];
afterAll(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function temporaryDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temporary.push(dir);
  return dir;
}

/** A bundle folder with a stand-in `index.mjs` per function; removed when the file ends. */
export function standInBundles(names: readonly string[] = BUNDLES): string {
  const dir = temporaryDir('emq-bundles-');
  for (const name of names) {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, 'index.mjs'), 'export const handler = async () => ({});\n');
  }
  return dir;
}

export interface Synthesized {
  readonly stack: EchoMqAppStack;
  readonly template: Template;
}

/** Builds and synthesizes one stack variant (seconds: call it once per file, in beforeAll). */
export function synthStack(
  deployment: EchoMqDeployment = {},
  props: Omit<EchoMqAppStackProps, 'deployment'> = {},
): Synthesized {
  const app = new App({ outdir: temporaryDir('emq-cdk-out-') });
  const stack = new EchoMqAppStack(app, 'EchoMqTest', {
    env: TEST_ENV,
    ...props,
    deployment: { bundleDir: standInBundles(), ...deployment },
  });
  return { stack, template: Template.fromStack(stack) };
}
