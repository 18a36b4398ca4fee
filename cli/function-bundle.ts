/**
 * Runs a built function (dist/functions/<name>/index.mjs) on one event in a Node process of
 * its own, as the Lambda runtime does: its environment is exactly the one given, its log lines
 * (stdout) go to `log`, and its answer comes back. Used by `emq sqs`.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CliFailure } from './failures.js';

// The child: imports the bundle, calls the handler with a Lambda-like context, prints the answer.
const CHILD = `
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const { handler } = await import(process.argv[1]);
const deadline = Date.now() + 30000;
const context = {
  functionName: 'emq-local', functionVersion: '$LATEST', awsRequestId: crypto.randomUUID(),
  invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:emq-local', memoryLimitInMB: '512',
  logGroupName: '/aws/lambda/emq-local', logStreamName: 'local', callbackWaitsForEmptyEventLoop: false,
  getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
};
const answer = await handler(JSON.parse(Buffer.concat(chunks).toString('utf8')), context);
process.stdout.write('\\u0000ANSWER ' + JSON.stringify(answer ?? null) + '\\n');
process.exit(0);
`;

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

export function runBundle(
  name: string,
  event: unknown,
  env: Readonly<Record<string, string | undefined>>,
  log: (line: string) => void,
): Promise<unknown> {
  const bundle = bundlePath(name);
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', CHILD, pathToFileURL(bundle).href],
      {
        env: Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)),
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let answer: unknown;
    let rest = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      rest += chunk;
      const lines = rest.split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('\u0000ANSWER ')) answer = JSON.parse(line.slice(8));
        else if (line !== '') log(line);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => log(chunk.trimEnd()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(answer);
      else
        reject(
          new CliFailure(
            'EMQ_UNKNOWN',
            `The ${name} function exited with code ${code}; its log is above.`,
          ),
        );
    });
    child.stdin.end(JSON.stringify(event));
  });
}
