// Every command line of the README, as a newcomer pastes it. Each line of a ```sh block is one
// of: run here, against the local stack the README's own `npm start` line starts (the built
// start script, on free ports: the README's 127.0.0.1:3000 and the default Valkey address are
// swapped for the stack's); run by CI itself (`.ci/run` runs `npm ci` and `npm test`); or
// AWS-only (a ```sh aws block, or a line ending in `# AWS only`), not run. A line that is none
// of these fails the test. Placeholders come from earlier answers: `<id>` is the last job id a
// command printed (for an SQS send, the id the stack's log shows for its message), `<port>` the
// local SQS port the banner prints. A comment `# 201` is the HTTP status the line must answer;
// an EMQ_* code named in a comment must appear in the line's output. Every wait is on the
// stack's own output; nothing sleeps and nothing is retried.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { synthesizedSettings } from '../../scripts/local/synthesis.js';
import { freePorts } from '../support/servers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const START = join(ROOT, 'dist/scripts/start/index.mjs');
const CLI = join(ROOT, 'dist/cli/emq/index.mjs');
const READY = 'Ctrl-C stops everything.';
/** Upper bounds for a loaded 2-core machine, never a speed assertion. */
const STACK_UP_MS = 60_000;
const SYNTHESIS_MS = 240_000;
const LOG_LINE_MS = 30_000;
const COMMAND_MS = 60_000;
/** What the README's addresses mean: the stack's defaults. */
const README_HTTP = 'http://127.0.0.1:3000';

type Kind = 'start' | 'ci' | 'here' | 'aws';

interface Step {
  readonly kind: Kind;
  /** The command as the README writes it, comment left out. */
  readonly command: string;
  /** The comment after the command, if any. */
  readonly comment: string;
  /** The README line it came from, for messages. */
  readonly line: number;
}

/** Every line of the README's shell blocks, as steps, in order. */
function readmeSteps(): Step[] {
  const steps: Step[] = [];
  let fence: string | undefined;
  readFileSync(join(ROOT, 'README.md'), 'utf8')
    .split('\n')
    .forEach((text, index) => {
      if (text.startsWith('```')) {
        fence = fence === undefined ? text.slice(3).trim() : undefined;
        return;
      }
      if (fence === undefined || !/^(sh|bash|shell)\b/.test(fence) || text.trim() === '') return;
      if (text.trim().startsWith('#')) return;
      const at = text.search(/\s#\s/);
      const command = (at === -1 ? text : text.slice(0, at)).trim();
      const comment =
        at === -1
          ? ''
          : text
              .slice(at)
              .replace(/^\s#\s/, '')
              .trim();
      const aws = fence.split(/\s+/).includes('aws') || /\bAWS only\b/i.test(comment);
      for (const part of command.split(' && ')) {
        steps.push({
          kind: aws ? 'aws' : kindOf(part),
          command: part.trim(),
          comment,
          line: index + 1,
        });
      }
    });
  return steps;
}

function kindOf(command: string): Kind {
  if (/^npm start\b/.test(command)) return 'start';
  if (/^npm (ci|test)$/.test(command)) return 'ci';
  if (/^(curl|npx emq) /.test(command)) return 'here';
  throw new Error(
    `README command "${command}" is neither run here, by CI, nor marked AWS-only: mark it \`# AWS only\`, put it in a \`\`\`sh aws block, or teach this test to run it`,
  );
}

const STEPS = readmeSteps();
/** The steps from each `npm start` up to the next one: one stack each. */
const SESSIONS = STEPS.reduce<Step[][]>((sessions, step) => {
  if (step.kind === 'start') sessions.push([step]);
  else if (step.kind === 'here') {
    const current = sessions.at(-1);
    if (current === undefined)
      throw new Error(
        `README line ${step.line} needs the stack, but no npm start line comes before it`,
      );
    current.push(step);
  }
  return sessions;
}, []);

interface Stack {
  readonly child: ChildProcess;
  readonly output: () => string;
  /** Resolves with the first match of `pattern` in the output from `from` on. */
  readonly waitFor: (what: string, pattern: RegExp, from?: number) => Promise<RegExpExecArray>;
  readonly exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();
const folders: string[] = [];

beforeAll(async () => {
  for (const file of [START, CLI]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first.`);
  }
  // The stack serves what the synthesized stack deploys; the first synthesis after a change
  // to infra/ takes tens of seconds, and every start below then reads the kept result.
  await synthesizedSettings(ROOT);
}, SYNTHESIS_MS);

afterAll(async () => {
  // Only where a test failed before its own stop: the servers die with the script.
  for (const child of running) child.kill('SIGKILL');
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

/** `npm start -- <args>` as the start script's last step runs it, on free ports. */
async function startStack(
  args: readonly string[],
): Promise<{ stack: Stack; http: string; valkey: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'emq-readme-'));
  folders.push(dataDir);
  const [httpPort, valkeyPort] = await freePorts(2);
  const child = spawn(
    process.execPath,
    [
      START,
      ...args,
      '--port',
      String(httpPort),
      '--valkey-port',
      String(valkeyPort),
      '--data-dir',
      dataDir,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: withoutEmq() },
  );
  running.add(child);
  let output = '';
  const listeners = new Set<() => void>();
  const take = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
      for (const listener of listeners) listener();
    }),
  );
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const waitFor = (what: string, pattern: RegExp, from = 0) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const found = pattern.exec(output.slice(from));
        if (found !== null) done(() => resolve(found));
        else if (gone) done(() => reject(new Error(`the stack exited before ${what}:\n${output}`)));
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`no ${what} within ${LOG_LINE_MS} ms:\n${output}`))),
        what === 'the ready line' ? STACK_UP_MS : LOG_LINE_MS,
      );
      const done = (settle: () => void) => {
        clearTimeout(timer);
        listeners.delete(check);
        settle();
      };
      listeners.add(check);
      check();
    });
  const stack: Stack = { child, output: () => output, waitFor, exited };
  await waitFor('the ready line', new RegExp(READY.replace('.', '\\.')));
  return { stack, http: `http://127.0.0.1:${httpPort}`, valkey: `redis://127.0.0.1:${valkeyPort}` };
}

async function stopStack(stack: Stack): Promise<void> {
  stack.child.kill('SIGINT');
  expect(await stack.exited).toBe(0);
}

/** The environment a reader has: no EMQ_* setting, but the Valkey this run tests (EMQ_VALKEY_BIN). */
function withoutEmq(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('EMQ_') || name === 'EMQ_VALKEY_BIN',
    ),
  );
}

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function bash(command: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  const child = spawn('bash', ['-c', command], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const JOB_ID = /JOB[0-9A-Za-z]{11}/g;

describe('the README', () => {
  it('marks every command line as run here, run by CI, or AWS-only', () => {
    expect(STEPS.filter((step) => step.kind === 'here').length).toBeGreaterThan(0);
    expect(SESSIONS.length).toBeGreaterThan(0);
  });

  it('leaves to CI only what .ci/run runs, and starts the stack the way npm start does', () => {
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    for (const step of STEPS.filter((s) => s.kind === 'ci')) {
      expect(ci, `.ci/run runs ${step.command}`).toMatch(
        new RegExp(`^(leg \\S+ )?${step.command}\\b`, 'm'),
      );
    }
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    // This test runs the start script's last step; the build steps before it are npm test's.
    expect(scripts.start).toMatch(/&& node dist\/scripts\/start\/index\.mjs$/);
    expect(scripts.test).toContain('npm run -s build');
  });

  it.each(SESSIONS.map((session) => [session[0]?.command ?? '', session] as const))(
    'runs "%s" and every command after it against that stack',
    async (_start, session) => {
      const [start, ...commands] = session;
      const args = /^npm start(?: -- (.*))?$/.exec(start?.command ?? '')?.[1]?.split(/\s+/) ?? [];
      const { stack, http, valkey } = await startStack(args);
      try {
        // The README's addresses are the stack's defaults; the stack here runs on free ports.
        const env = { ...withoutEmq(), EMQ_URL: valkey };
        const sqsPort = /Queue +http:\/\/sqs\.[a-z0-9-]+\.localhost:(\d+)\//.exec(
          stack.output(),
        )?.[1];
        let lastId: string | undefined;
        for (const step of commands) {
          let command = step.command.replaceAll(README_HTTP, http);
          if (command.includes('<port>')) {
            expect(
              sqsPort,
              `README line ${step.line}: the banner prints the SQS port`,
            ).toBeDefined();
            command = command.replaceAll('<port>', sqsPort ?? '');
            // The URL the README writes is the one the banner prints.
            for (const [url] of command.matchAll(/http:\/\/sqs\.\S+/g))
              expect(stack.output()).toContain(url);
          }
          if (command.includes('<id>')) {
            expect(
              lastId,
              `README line ${step.line}: an earlier line printed a job id`,
            ).toBeDefined();
            command = command.replaceAll('<id>', lastId ?? '');
          }
          const from = stack.output().length;
          const ran = await bash(command, env);
          const where = `README line ${step.line}: ${command}\n${ran.stdout}\n${ran.stderr}`;
          expect(ran.code, where).toBe(0);
          const status = /^(\d{3})\b/.exec(step.comment)?.[1];
          if (status !== undefined)
            expect(/^HTTP\/[\d.]+ (\d{3})/.exec(ran.stdout)?.[1], where).toBe(status);
          for (const [code] of step.comment.matchAll(/\bEMQ_[A-Z_]+\b/g))
            expect(ran.stdout, where).toContain(code);
          const ids = ran.stdout.match(JOB_ID);
          if (ids !== null) lastId = ids.at(-1);
          if (/^npx emq send /.test(step.command)) {
            // The SQS function runs the message once the poller takes it: its record's log line.
            const messageId = ran.stdout.trim();
            const line = await stack.waitFor(
              `the log line of message ${messageId}`,
              new RegExp(`sqs record messageId=${messageId} [^\\n]*`),
              from,
            );
            lastId = line[0].match(JOB_ID)?.[0] ?? lastId;
          }
        }
      } finally {
        await stopStack(stack);
      }
    },
    COMMAND_MS * 3,
  );
});
