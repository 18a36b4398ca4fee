/**
 * Runs a built function (dist/functions/<name>/index.mjs) on one event as the Lambda runtime
 * does, with the function runtime it shares with the local stack (runtime/function-process.ts):
 * a process of its own whose environment is exactly the one given, its log lines (stdout,
 * stderr) to `log`, its answer back; then the process ends. Used by `emq sqs`.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CliFailure } from './failures.js';
import { Children } from './runtime/children.js';
import { FunctionError, startFunction } from './runtime/function-process.js';

/** Where the bundle is: beside the built CLI (dist/cli/emq), or under dist/ from the sources. */
export function bundlePath(name: string): string {
  for (const relative of [
    `../../functions/${name}/index.mjs`,
    `../dist/functions/${name}/index.mjs`,
  ]) {
    const path = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new CliFailure(
    'EMQ_USAGE',
    `The ${name} function is not built: run \`npm run build\` first.`,
    2,
  );
}

export async function runBundle(
  name: string,
  event: unknown,
  env: Readonly<Record<string, string | undefined>>,
  log: (line: string) => void,
): Promise<unknown> {
  const bundle = bundlePath(name);
  const children = new Children();
  try {
    const container = await startFunction(children, { name, bundle, env, log });
    return await container.invoke(event);
  } catch (error) {
    if (!(error instanceof FunctionError)) throw error;
    throw new CliFailure('EMQ_UNKNOWN', `${error.message}.`);
  } finally {
    await children.stopAll();
  }
}
