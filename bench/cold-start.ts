/**
 * A cold process to its first admission, as a fresh Lambda container lives it: `node` starts,
 * imports the SQS bundle, the container connects with every connect-time check (fence, memory
 * policy, module), and the handler admits one record. Beside it a BullMQ producer's cold
 * start: `node` starts, imports bullmq and iovalkey, opens a Queue and adds one job. Wall time
 * from spawn to the child's "admitted" on stderr (process exit and teardown are not counted);
 * the child's stdout is a pipe the bench drains, as Lambda's is. Samples alternate.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sqsRecord } from '../test/fixtures/sqs/records.js';
import { PAYLOAD, PAYLOAD_OBJECT } from './case.js';
import { type Spread, spreadOf } from './stats.js';

export interface ColdStartFigures {
  /** SQS bundle: node start to the first record admitted, ms. */
  readonly emq: Spread;
  /** BullMQ producer: node start to the first job added, ms. */
  readonly bullmq: Spread;
}

const ADMITTED = 'admitted\n';
const TIMEOUT_MS = 20_000;

function emqSource(bundle: string): string {
  const event = { Records: [sqsRecord({ body: PAYLOAD })] };
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'emq-bench-cold',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-2:123456789012:function:emq-bench-cold',
    memoryLimitInMB: '1024',
    awsRequestId: '0f4c2e8a-5b1d-4c3e-9a7f-000000000c01',
    logGroupName: '/aws/lambda/emq-bench-cold',
    logStreamName: '2025/11/30/[$LATEST]cold',
  };
  return [
    `const { handler } = await import(${JSON.stringify(bundle)});`,
    `const context = { ...${JSON.stringify(context)}, getRemainingTimeInMillis: () => 30000, done() {}, fail() {}, succeed() {} };`,
    `const response = await handler(${JSON.stringify(event)}, context);`,
    `if (response.batchItemFailures.length > 0) process.exit(2);`,
    `process.stderr.write(${JSON.stringify(ADMITTED)}, () => process.exit(0));`,
  ].join('\n');
}

function bullSource(port: number): string {
  return [
    `const { Queue } = await import('bullmq');`,
    `const { Valkey } = await import('iovalkey');`,
    `const connection = new Valkey({ host: '127.0.0.1', port: ${port}, maxRetriesPerRequest: null });`,
    `const queue = new Queue('bench-cold', { connection });`,
    `await queue.add('job', ${JSON.stringify(PAYLOAD_OBJECT)});`,
    `process.stderr.write(${JSON.stringify(ADMITTED)}, () => process.exit(0));`,
  ].join('\n');
}

/** Milliseconds from spawn to the child's "admitted" line. */
function coldMs(root: string, source: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--input-type=module', '-e', source], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.resume();
    let errText = '';
    let settled = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.stderr.on('data', (chunk: Buffer) => {
      errText += chunk.toString();
      if (!settled && errText.includes(ADMITTED)) {
        settled = true;
        done(performance.now() - started);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!settled) {
        settled = true;
        fail(new Error(`cold start exited ${code} before admitting: ${errText.slice(0, 400)}`));
      }
    });
  });
}

export async function measureColdStarts(
  root: string,
  server: { readonly url: string; readonly port: number },
  times: number,
): Promise<ColdStartFigures> {
  const bundle = pathToFileURL(resolve(root, 'dist/functions/sqs/index.mjs')).href;
  const emqEnv = {
    ...process.env,
    AWS_REGION: 'us-east-2',
    EMQ_URL: server.url,
    EMQ_EXECUTOR: 'native',
    EMQ_CLUSTER: 'false',
    EMQ_DEFAULT_QUEUE: 'bench-cold',
  };
  const emq = emqSource(bundle);
  const bull = bullSource(server.port);
  const samples = { emq: [] as number[], bullmq: [] as number[] };
  // One throwaway pair: the first process after a build pays for a cold file cache.
  await coldMs(root, emq, emqEnv);
  await coldMs(root, bull, process.env);
  for (let i = 0; i < times; i++) {
    samples.emq.push(await coldMs(root, emq, emqEnv));
    samples.bullmq.push(await coldMs(root, bull, process.env));
  }
  return { emq: spreadOf(samples.emq), bullmq: spreadOf(samples.bullmq) };
}
