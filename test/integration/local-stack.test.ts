// `npm start` as a user runs it: the built start script brings up Valkey with the module and
// the real HTTP function; real HTTP requests admit and read jobs; Ctrl-C (SIGINT) stops every
// process it started, and the data folder keeps the jobs for the next start.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EchoMqClient } from '../../client/index.js';
import { synthesizedSettings } from '../../scripts/local/synthesis.js';
import { type DeployedSettings, routed } from '../../scripts/local/template.js';
import { valkeyVersionLine } from '../../scripts/valkey/cli.js';
import { type Connection, connect, readJob } from '../../src/index.js';
import { alive } from '../support/alive.js';
import { emq } from '../support/cli.js';
import { jobsOf } from '../support/emq.js';
import { freePorts, randomQueue } from '../support/servers.js';
import { waitFor } from '../support/wait.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const START = fileURLToPath(new URL('../../dist/scripts/start/index.mjs', import.meta.url));
/** An upper bound for a synthesis of the stack on a loaded 2-core machine, never a speed assertion. */
const SYNTHESIS_MS = 240_000;
const READY = 'Ctrl-C stops everything.';

interface StackState {
  pid: number;
  http: string;
  valkey: { urls: string[]; cluster: boolean };
  children: { name: string; pid: number }[];
}

interface Started {
  readonly child: ChildProcess;
  readonly state: StackState;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();
const folders: string[] = [];

/** What the stack deploys, as the local stack reads it from the synthesized template. */
let deployed: DeployedSettings;

beforeAll(async () => {
  if (!existsSync(START)) throw new Error(`${START} is missing: run \`npm run build\` first.`);
  // The first synthesis after a change to infra/ takes tens of seconds; the stacks below
  // then start from the kept result, within their own bound.
  deployed = await synthesizedSettings(ROOT);
}, SYNTHESIS_MS);

afterAll(async () => {
  // Only when a test failed before its own stop: the servers die with the script (pdeathsig).
  for (const child of running) child.kill('SIGKILL');
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

async function dataFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'emq-local-stack-'));
  folders.push(folder);
  return folder;
}

/** The environment a stack is started with: this process's, and `extra`. */
function stackEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env = Object.entries(process.env).filter(
    (entry): entry is [string, string] => entry[1] !== undefined,
  );
  return { ...Object.fromEntries(env), ...extra };
}

async function startStack(
  args: readonly string[],
  dataDir: string,
  env: Readonly<Record<string, string>> = stackEnv(),
): Promise<Started> {
  const child = spawn(process.execPath, [START, '--data-dir', dataDir, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  running.add(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const deadline = Date.now() + 50_000;
  while (!output.includes(READY)) {
    const ended = await Promise.race([exited.then(() => true), sleep(50).then(() => false)]);
    if (ended || Date.now() > deadline) {
      throw new Error(`The stack did not come up${ended ? ' (it exited)' : ''}:\n${output}`);
    }
  }
  const state = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as StackState;
  return { child, state, output: () => output, exited };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** True when something accepts connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function portsOf(state: StackState): number[] {
  return [state.http, ...state.valkey.urls].map((url) => Number(new URL(url).port));
}

async function stopWithCtrlC(stack: Started, dataDir: string): Promise<number | null> {
  stack.child.kill('SIGINT');
  const code = await stack.exited;
  expect(stack.output()).toContain('Stopped.');
  expect(alive(stack.state.pid)).toBe(false);
  for (const { pid } of stack.state.children) expect(alive(pid), `pid ${pid}`).toBe(false);
  // Valkey renames its process, so the ports are what proves nothing of the stack still runs.
  for (const port of portsOf(stack.state))
    expect(await listening(port), `port ${port}`).toBe(false);
  expect(existsSync(join(dataDir, 'stack.json'))).toBe(false);
  return code;
}

/** The pid of the stack's process named `name` (`http function`, `valkey-server:<port>`). */
function pidOf(state: StackState, name: string): number {
  const child = state.children.find((each) => each.name === name);
  if (child === undefined) throw new Error(`No ${name} among ${JSON.stringify(state.children)}.`);
  return child.pid;
}

/**
 * The environment a Node process was started with (Linux: /proc/<pid>/environ), less the two
 * variables that carry its IPC channel, which Node takes out of process.env before any code of
 * the process runs.
 */
async function environOf(pid: number): Promise<Record<string, string>> {
  const text = await readFile(`/proc/${pid}/environ`, 'utf8');
  const channel = ['NODE_CHANNEL_FD', 'NODE_CHANNEL_SERIALIZATION_MODE'];
  return Object.fromEntries(
    text
      .split('\0')
      .filter((entry) => entry !== '')
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)])
      .filter(([name]) => !channel.includes(name ?? '')),
  );
}

/** Bytes sent to 127.0.0.1:`port` that its server has not read yet (Linux: /proc/net/tcp). */
async function unreadBytes(port: number): Promise<number> {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let unread = 0;
  for (const row of (await readFile('/proc/net/tcp', 'utf8')).split('\n').slice(1)) {
    const [, address, , state, queues] = row.trim().split(/\s+/);
    // 01: an established connection; the queues read "<to send>:<received, unread>" in hex.
    if (address === local && state === '01') {
      unread += Number.parseInt(queues?.split(':')[1] ?? '0', 16);
    }
  }
  return unread;
}

/** The settings the stack decides, which it takes out of the user's environment. */
const OWNED = ['EMQ_URL', 'EMQ_CLUSTER', 'EMQ_SECRET_ARN', 'EMQ_USERNAME', 'EMQ_PASSWORD'];

async function connected(state: StackState): Promise<Connection> {
  return connect({ urls: state.valkey.urls, cluster: state.valkey.cluster });
}

describe('local stack, standalone', () => {
  let stack: Started;
  let dataDir: string;
  let valkeyPort: number;
  // A user's own settings for where Valkey is, which the stack must not let reach its
  // function (it would send every request to port 1), and one of theirs that must.
  const userEnv = stackEnv({
    EMQ_URL: 'redis://127.0.0.1:1',
    EMQ_CLUSTER: 'true',
    EMQ_LOCAL_STACK_TEST: 'reaches the function',
  });

  beforeAll(async () => {
    dataDir = await dataFolder();
    const [httpPort, port] = await freePorts(2);
    valkeyPort = port ?? 0;
    stack = await startStack(
      ['--port', String(httpPort), '--valkey-port', String(valkeyPort)],
      dataDir,
      userEnv,
    );
  });

  it("runs the HTTP function in its own process with exactly the stack's environment", async () => {
    const mine = Object.entries(userEnv).filter(([name]) => !OWNED.includes(name));
    expect(await environOf(pidOf(stack.state, 'http function'))).toEqual({
      ...deployed.httpEnv,
      ...Object.fromEntries(mine),
      EMQ_URL: `redis://127.0.0.1:${valkeyPort}`,
      EMQ_CLUSTER: 'false',
      AWS_LAMBDA_LOG_LEVEL: userEnv.AWS_LAMBDA_LOG_LEVEL ?? 'DEBUG',
    });
    // The SQS function's settings are the SQS function's: without --sqs, no such function.
    expect(stack.state.children.map(({ name }) => name).sort()).toEqual([
      'http function',
      `valkey-server:${valkeyPort}`,
    ]);
  });

  it('answers 404 as API Gateway does for what the stack does not route, before the function', async () => {
    for (const [method, path] of [
      ['DELETE', '/queues/q/jobs/JOB0SaFbT0LuLE'],
      ['POST', '/queues/q/other'],
      ['GET', '/'],
      // What a client that joined its endpoint's `/` and the route would send.
      ['POST', '//queues/q/jobs'],
      ['POST', '/queues/q/jobs/'],
    ] as const) {
      expect(routed(deployed.routes, method, path)).toBe(false);
      const response = await fetch(`${stack.state.http}${path}`, { method });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ message: 'Not Found' });
      // The function stamps every answer with its request id; API Gateway's 404 has none.
      expect(response.headers.get('x-request-id')).toBeNull();
    }
    // Every route the stack deploys reaches the function (it answers in problem+json or JSON).
    for (const { method, path } of deployed.routes) {
      const concrete = path.replace('{queue}', 'q').replace('{id}', 'JOB0SaFbT0LuLE');
      const response = await fetch(`${stack.state.http}${concrete}`, {
        method,
        ...(method === 'GET' || method === 'HEAD' ? {} : { body: 'x' }),
      });
      expect(response.headers.get('x-request-id'), `${method} ${path}`).not.toBeNull();
    }
  });

  it("prints the function's log lines, made readable, as it writes them", async () => {
    const queue = randomQueue();
    const response = await fetch(`${stack.state.http}/queues/${queue}/jobs`, {
      method: 'POST',
      body: 'logged',
    });
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    const line = new RegExp(
      `\\binfo {2}http request requestId=\\S+ .*queue=${queue} id=${id} status=201`,
    );
    await waitFor("the request's log line", 20_000, async () =>
      line.test(stack.output()) ? undefined : 'not printed yet',
    );
    // Readable: the JSON record (and its EMF metrics) is not printed as it is.
    expect(stack.output()).not.toContain('{"level":');
  });

  it('serves on the asked ports and prints ready-to-paste curl lines', () => {
    expect(stack.state.valkey).toEqual({
      urls: [`redis://127.0.0.1:${valkeyPort}`],
      cluster: false,
    });
    expect(stack.output()).toContain(
      `curl -i -X POST ${stack.state.http}/queues/demo/jobs -H 'Idempotency-Key: demo-1' --data-binary 'hello'`,
    );
    expect(stack.output()).toMatch(/module loaded, family native, wire identity 1 installed/);
  });

  it("prints no Node warning: the SQS emulator's node:sqlite is loaded only with --sqs", () => {
    expect(stack.output()).not.toContain('ExperimentalWarning');
    expect(stack.output()).not.toContain('SQLite');
  });

  it('serves the OpenAPI document at /openapi.json', async () => {
    const response = await fetch(`${stack.state.http}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const document = (await response.json()) as {
      openapi: string;
      servers: { url: string }[];
      paths: Record<string, unknown>;
    };
    expect(document.openapi).toBe('3.1.0');
    // The stack's own address, not the file's port 3000 (this stack runs on a free port).
    expect(document.servers[0]?.url).toBe(stack.state.http);
    expect(new URL(stack.state.http).port).not.toBe('3000');
    expect(Object.keys(document.paths)).toEqual([
      '/queues/{queue}/jobs',
      '/queues/{queue}/jobs/batch',
      '/queues/{queue}/jobs/{id}',
    ]);
    expect(stack.output()).toContain(`${stack.state.http}/openapi.json`);
  });

  it('runs the Valkey that EMQ_VALKEY_BIN names (else PATH), as the banner says', async () => {
    const chosen = /\bv=(\S+)/.exec(await valkeyVersionLine('valkey-server'))?.[1];
    expect(stack.output()).toContain(`Valkey   ${chosen} `);
  });

  it('admits a POST, answers a replay with the same id, and reads the job back', async () => {
    const queue = randomQueue();
    const post = () =>
      fetch(`${stack.state.http}/queues/${queue}/jobs`, {
        method: 'POST',
        headers: { 'Idempotency-Key': 'order-42', 'Content-Type': 'application/json' },
        body: '{"order":42}',
      });
    const first = await post();
    expect(first.status).toBe(201);
    const created = (await first.json()) as { id: string; status: string };
    expect(created.status).toBe('enqueued');
    expect(first.headers.get('location')).toBe(`/queues/${queue}/jobs/${created.id}`);

    const replay = await post();
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ queue, id: created.id, status: 'duplicate' });

    const read = await fetch(`${stack.state.http}/queues/${queue}/jobs/${created.id}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({
      queue,
      id: created.id,
      state: 'pending',
      attempts: 0,
      payload: '{"order":42}',
      encoding: 'utf8',
    });

    const connection = await connected(stack.state);
    try {
      expect(await jobsOf(connection, queue)).toEqual({
        rows: [created.id],
        pending: [created.id],
      });
      expect((await readJob(connection, queue, created.id))?.payload.toString()).toBe(
        '{"order":42}',
      );
    } finally {
      await connection.close();
    }
  });

  it('carries a binary body byte for byte through the adapter', async () => {
    const queue = randomQueue();
    const bytes = Buffer.from([0, 0xff, 0xfe, 0x0a, 0x80, 0x7f]);
    const response = await fetch(`${stack.state.http}/queues/${queue}/jobs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/octet-stream' },
      body: bytes,
    });
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    const connection = await connected(stack.state);
    try {
      expect((await readJob(connection, queue, id))?.payload.equals(bytes)).toBe(true);
    } finally {
      await connection.close();
    }
  });

  it('stops every process on Ctrl-C, and a restart on the same folder keeps the jobs', async () => {
    const queue = randomQueue();
    const response = await fetch(`${stack.state.http}/queues/${queue}/jobs`, {
      method: 'POST',
      body: 'kept across restarts',
    });
    const { id } = (await response.json()) as { id: string };

    expect(await stopWithCtrlC(stack, dataDir)).toBe(0);

    const [httpPort] = await freePorts(1);
    const again = await startStack(
      ['--port', String(httpPort), '--valkey-port', String(valkeyPort)],
      dataDir,
    );
    const read = await fetch(`${again.state.http}/queues/${queue}/jobs/${id}`);
    expect(((await read.json()) as { payload: string }).payload).toBe('kept across restarts');
    expect(await stopWithCtrlC(again, dataDir)).toBe(0);
  });
});

describe('local stack, cluster', () => {
  it('forms three primaries, admits and reads a job, and stops them all on Ctrl-C', async () => {
    const dataDir = await dataFolder();
    const [httpPort] = await freePorts(1);
    const stack = await startStack(['--cluster', '--port', String(httpPort)], dataDir);
    expect(stack.state.valkey.cluster).toBe(true);
    const servers = stack.state.children.filter(({ name }) => name.startsWith('valkey-server:'));
    expect(servers).toHaveLength(3);

    const queue = randomQueue();
    const put = await fetch(`${stack.state.http}/queues/${queue}/jobs`, {
      method: 'POST',
      body: 'on a cluster',
    });
    expect(put.status).toBe(201);
    const { id } = (await put.json()) as { id: string };
    const read = await fetch(`${stack.state.http}/queues/${queue}/jobs/${id}`);
    expect(((await read.json()) as { payload: string }).payload).toBe('on a cluster');

    expect(await stopWithCtrlC(stack, dataDir)).toBe(0);
  });
});

describe('local stack, under a named stage (--stage prod)', () => {
  it('serves the routes under /prod only, as API Gateway serves a named stage, to the client too', async () => {
    const dataDir = await dataFolder();
    const [httpPort] = await freePorts(1);
    const stack = await startStack(['--stage', 'prod', '--port', String(httpPort)], dataDir);
    const origin = `http://127.0.0.1:${httpPort}`;
    expect(stack.state.http).toBe(`${origin}/prod`);
    expect(stack.output()).toContain(`curl -i -X POST ${origin}/prod/queues/demo/jobs`);

    const queue = randomQueue();
    for (const endpoint of [stack.state.http, `${stack.state.http}/`]) {
      const client = new EchoMqClient({ endpoint, credentials: false });
      const admitted = await client.enqueue(queue, 'staged', { idempotencyKey: 'staged-1' });
      expect((await client.get(queue, admitted.id))?.payload).toBe('staged');
    }
    const response = await fetch(`${stack.state.http}/queues/${queue}/jobs`, {
      method: 'POST',
      headers: { 'Idempotency-Key': 'staged-1' },
      body: 'staged',
    });
    expect(response.status).toBe(200);
    const { id } = (await response.json()) as { id: string };
    expect(response.headers.get('location')).toBe(`/prod/queues/${queue}/jobs/${id}`);

    // Outside the stage, API Gateway's 404, before the function.
    for (const path of [`/queues/${queue}/jobs`, `/production/queues/${queue}/jobs`]) {
      const outside = await fetch(`${origin}${path}`, { method: 'POST', body: 'x' });
      expect(outside.status).toBe(404);
      expect(await outside.json()).toEqual({ message: 'Not Found' });
    }
    const openapi = await fetch(`${stack.state.http}/openapi.json`);
    expect(((await openapi.json()) as { servers: { url: string }[] }).servers[0]?.url).toBe(
      stack.state.http,
    );
    expect(await stopWithCtrlC(stack, dataDir)).toBe(0);
  });
});

describe('local stack, with --sqs', () => {
  it('prints a send line that a newcomer pastes, then finds the job with emq get', async () => {
    const dataDir = await dataFolder();
    const [httpPort, valkeyPort] = await freePorts(2);
    const stack = await startStack(
      ['--sqs', '--port', String(httpPort), '--valkey-port', String(valkeyPort)],
      dataDir,
    );
    const line = /emq send (\S+) 'hello from sqs' --queue demo/.exec(stack.output());
    expect(line, stack.output()).not.toBeNull();
    expect(stack.output()).toMatch(
      /aws --endpoint-url http:\/\/127\.0\.0\.1:\d+ .*sqs send-message/,
    );
    const queue = randomQueue();
    const sent = await emq(['send', line?.[1] ?? '', 'hello from sqs', '--queue', queue]);
    expect(sent.code, sent.stderr).toBe(0);

    let id: string | undefined;
    await waitFor('the admitted record in the log', 20_000, async () => {
      id = new RegExp(`queue=${queue} id=(JOB[0-9A-Za-z]{11})`).exec(stack.output())?.[1];
      return id === undefined ? 'not admitted yet' : undefined;
    });
    const got = await emq([
      'get',
      queue,
      id ?? '',
      '--url',
      stack.state.valkey.urls[0] ?? '',
      '--json',
    ]);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ queue, id, payload: 'hello from sqs' });

    // The banner's dead-letter lines: a record the function refuses, then its reason.
    const dlq = /emq dlq (\S+) /.exec(stack.output())?.[1] ?? '';
    expect(stack.output()).toContain(`send ${line?.[1]} 'to the dlq' --queue 'not a queue'`);
    const refused = await emq(['send', line?.[1] ?? '', 'to the dlq', '--queue', 'not a queue']);
    expect(refused.code, refused.stderr).toBe(0);
    let letter: { errorCode?: string; sourceMessageId?: string; body?: string } | undefined;
    await waitFor('the dead letter', 20_000, async () => {
      const peeked = await emq(['dlq', dlq, '--json']);
      if (peeked.code !== 0) return peeked.stdout;
      const { messages } = JSON.parse(peeked.stdout) as { messages: (typeof letter)[] };
      letter = messages.find((message) => message?.sourceMessageId === refused.stdout.trim());
      return letter === undefined ? 'not in the DLQ yet' : undefined;
    });
    expect(letter).toMatchObject({ errorCode: 'EMQ_INVALID_QUEUE', body: 'to the dlq' });

    expect(await stopWithCtrlC(stack, dataDir)).toBe(0);
  });
});

describe('local stack, a function that dies under a request', () => {
  it('answers the request 502 as API Gateway does, says which process died, and stops', async () => {
    const dataDir = await dataFolder();
    const [httpPort, valkeyPort = 0] = await freePorts(2);
    // The function waits on a stopped Valkey for as long as the test takes, never timing out.
    const stack = await startStack(
      ['--port', String(httpPort), '--valkey-port', String(valkeyPort)],
      dataDir,
      stackEnv({ EMQ_COMMAND_TIMEOUT_MS: '600000' }),
    );
    const jobs = `${stack.state.http}/queues/${randomQueue()}/jobs`;
    // The first request opens the function's connection, on which the second one's command waits.
    expect((await fetch(jobs, { method: 'POST', body: 'first' })).status).toBe(201);
    const valkey = pidOf(stack.state, `valkey-server:${valkeyPort}`);
    const http = pidOf(stack.state, 'http function');

    process.kill(valkey, 'SIGSTOP');
    let answer: Promise<{ status: number; body: string }>;
    try {
      answer = fetch(jobs, { method: 'POST', body: 'second' }).then(async (response) => ({
        status: response.status,
        body: await response.text(),
      }));
      const early = answer.then(
        (early) => new Error(`answered ${early.status} before the function was killed`),
        (error: unknown) => new Error(`failed before the function was killed: ${String(error)}`),
      );
      await waitFor(
        "the function's command at the stopped Valkey",
        20_000,
        async () => ((await unreadBytes(valkeyPort)) > 0 ? undefined : 'nothing sent yet'),
        early,
      );
      process.kill(http, 'SIGKILL');
    } finally {
      process.kill(valkey, 'SIGCONT');
    }

    expect(await answer).toEqual({ status: 502, body: '{"message":"Internal Server Error"}' });
    expect(await stack.exited).toBe(1);
    expect(stack.output()).toContain(
      `npm start: http function (pid ${http}) stopped on its own (killed by SIGKILL); it wrote nothing to stderr.`,
    );
    expect(stack.output()).toContain('Stopped.');
    for (const { pid } of stack.state.children) expect(alive(pid), `pid ${pid}`).toBe(false);
    for (const port of portsOf(stack.state)) {
      expect(await listening(port), `port ${port}`).toBe(false);
    }
    expect(existsSync(join(dataDir, 'stack.json'))).toBe(false);
  });
});
