// The local function runtime (cli/runtime/function-process.ts) on stand-in bundles: a
// long-lived process per function whose environment is exactly the one given, its lines
// handed over as written, its answers over IPC, and a death under an invocation reported
// (with its stderr) instead of hanging.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type Child, Children } from '../../cli/runtime/children.js';
import {
  FunctionError,
  type FunctionProcess,
  startFunction,
} from '../../cli/runtime/function-process.js';
import { alive } from '../support/alive.js';

const PROBE = fileURLToPath(new URL('../fixtures/functions/probe.mjs', import.meta.url));
const BROKEN = fileURLToPath(new URL('../fixtures/functions/broken.mjs', import.meta.url));

const started: Children[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((children) => children.stopAll()));
});

interface Probe {
  readonly container: FunctionProcess;
  readonly children: Children;
  readonly lines: string[];
  readonly deaths: { child: Child; how: string }[];
}

async function probe(
  env: Readonly<Record<string, string | undefined>> = { PATH: process.env.PATH },
  bundle = PROBE,
): Promise<Probe> {
  const children = new Children();
  started.push(children);
  const lines: string[] = [];
  const deaths: { child: Child; how: string }[] = [];
  children.onUnexpectedExit((child, how) => deaths.push({ child, how }));
  const container = await startFunction(children, {
    name: 'probe',
    bundle,
    env,
    log: (line) => lines.push(line),
  });
  return { container, children, lines, deaths };
}

async function failureOf(invocation: Promise<unknown>): Promise<FunctionError> {
  const error = await invocation.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof FunctionError)) throw new Error(`not a FunctionError: ${String(error)}`);
  return error;
}

describe('the local function runtime', () => {
  it('gives the function exactly the environment it is given, nothing of its own', async () => {
    const env = { EMQ_URL: 'redis://127.0.0.1:6399', EMQ_CLUSTER: 'false', ONLY: 'this' };
    const { container } = await probe({ ...env, UNSET: undefined });
    expect(await container.invoke({ do: 'env' })).toEqual({ env });
  });

  it('imports the bundle once: one process keeps its state across invocations', async () => {
    const { container } = await probe();
    const first = (await container.invoke({ do: 'count' })) as { invocations: number; pid: number };
    const second = (await container.invoke({ do: 'count' })) as typeof first;
    expect(first).toEqual({ invocations: 1, pid: container.pid });
    expect(second).toEqual({ invocations: 2, pid: container.pid });
  });

  it('hands each line of stdout and stderr over as written, empty lines left out', async () => {
    const { container, lines } = await probe();
    const stdout = ['{"level":"info","message":"one"}', '', 'two'];
    expect(await container.invoke({ do: 'log', stdout, stderr: ['on stderr'] })).toBe('logged');
    await container.stop();
    expect(lines.filter((line) => line !== 'on stderr')).toEqual([stdout[0], 'two']);
    expect(lines).toContain('on stderr');
  });

  it('passes a Lambda-like context: the request id, the function name, the time left', async () => {
    const { container } = await probe();
    const answer = await container.invoke(
      { do: 'context' },
      { requestId: 'r-1', timeoutMs: 20_000 },
    );
    expect(answer).toMatchObject({ requestId: 'r-1', functionName: 'emq-probe' });
    const { remainingMs } = answer as { remainingMs: number };
    expect(remainingMs).toBeGreaterThan(0);
    expect(remainingMs).toBeLessThanOrEqual(20_000);
  });

  it('answers null for a handler that returns nothing, as Lambda does', async () => {
    const { container } = await probe();
    expect(await container.invoke({ do: 'nothing' })).toBeNull();
  });

  it("fails the invocation with the handler's error, and keeps the container", async () => {
    const { container, lines } = await probe();
    const error = await failureOf(container.invoke({ do: 'throw' }));
    expect(error.failure).toBe('failed');
    expect(error.message).toContain('threw TypeError: asked to throw');
    expect(await container.invoke({ do: 'count' })).toMatchObject({ invocations: 2 });
    expect(lines.some((line) => line.startsWith('TypeError: asked to throw'))).toBe(true);
  });

  it('fails an invocation that outlives its deadline, and keeps the container', async () => {
    const { container } = await probe();
    const error = await failureOf(container.invoke({ do: 'hang' }, { timeoutMs: 100 }));
    expect(error.failure).toBe('timed out');
    expect(error.message).toContain('Task timed out');
    expect(await container.invoke({ do: 'count' })).toMatchObject({ invocations: 2 });
  });

  it('fails every invocation under way when the process dies, and reports it with its stderr', async () => {
    const { container, lines, deaths } = await probe();
    const waiting = container.invoke({ do: 'hang' });
    const dying = container.invoke({ do: 'crash' });
    for (const invocation of [waiting, dying]) {
      const error = await failureOf(invocation);
      expect(error.failure).toBe('crashed');
      expect(error.message).toBe(
        `The probe function (pid ${container.pid}) stopped on its own during the invocation (exit code 3); its stderr is above`,
      );
    }
    expect(lines).toContain('dying as asked');
    expect(deaths.map(({ child, how }) => [child.name, how])).toEqual([
      ['probe function', 'exit code 3'],
    ]);
    expect(deaths[0]?.child.advice()).toBe('its stderr is above');
    // Later invocations fail at once: nothing hangs on a dead container.
    const later = await failureOf(container.invoke({ do: 'count' }));
    expect(later.failure).toBe('crashed');
    expect(later.message).toContain('is not running');
  });

  it('reports a process killed from outside, which wrote nothing to stderr', async () => {
    const { container, deaths } = await probe();
    const waiting = container.invoke({ do: 'hang' });
    process.kill(container.pid, 'SIGKILL');
    const error = await failureOf(waiting);
    expect(error.message).toContain('(killed by SIGKILL); it wrote nothing to stderr');
    expect(deaths).toHaveLength(1);
  });

  it('fails to start, with the import error on stderr, when the bundle throws as it loads', async () => {
    const children = new Children();
    started.push(children);
    const lines: string[] = [];
    const start = startFunction(children, {
      name: 'broken',
      bundle: BROKEN,
      env: {},
      log: (line) => lines.push(line),
    });
    const error = await failureOf(start);
    expect(error.message).toBe(
      'The broken function did not start (exit code 1); its stderr is above',
    );
    expect(lines.join('\n')).toContain('Error: broken at import');
  });

  it('stop ends the process, unreported, and later invocations fail as stopped', async () => {
    const { container, deaths } = await probe();
    const waiting = container.invoke({ do: 'hang' });
    await container.stop();
    expect(alive(container.pid)).toBe(false);
    expect((await failureOf(waiting)).failure).toBe('stopped');
    expect((await failureOf(container.invoke({ do: 'count' }))).failure).toBe('stopped');
    expect(deaths).toEqual([]);
  });
});
