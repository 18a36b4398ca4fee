/**
 * The local function runtime: a function runs as Lambda runs it, in a long-lived Node process
 * of its own (a container) that imports the built bundle (dist/functions/<name>/index.mjs)
 * once and keeps what the bundle keeps (its connection) across invocations. Its environment
 * is exactly the one given, as a function's configuration gives it; each event goes over an
 * IPC channel with a Lambda-like context (request id, deadline) and the answer comes back the
 * same way; its stdout (its log, one JSON object per line) and its stderr come back line by
 * line. A container takes invocations as they come, several at once (Lambda would start more
 * containers instead), so a slow request does not hold the others up.
 *
 * Used by the local stack (one container per function, for the stack's life) and by `emq sqs`
 * (start, one invocation, stop). The child's code is the string below, run with `node -e`, so
 * it is in every built layout (dist/scripts/start, dist/cli/emq) without a file of its own.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import type { Children, StartedChild } from './children.js';
import { contextFields } from './lambda-context.js';

// The container: imports the bundle once, then answers each invocation it is sent. A handler's
// error is the invocation's (its stack to stderr, as Lambda logs it); an uncaught one ends the
// process, as it ends a Lambda runtime. It exits when its parent goes away.
const CHILD = `
const bundle = process.argv[1];
const { handler } = await import(bundle);
if (typeof handler !== 'function') {
  process.stderr.write(bundle + ' exports no handler function\\n');
  process.exit(1);
}
const unsupported = () => {
  throw new Error('Not available outside Lambda: the handlers must not call it.');
};
const describe = (error) =>
  error instanceof Error
    ? { type: error.name, message: error.message }
    : { type: typeof error, message: String(error) };
const answer = (reply) => {
  try {
    process.send(reply);
  } catch (error) {
    process.send({ id: reply.id, error: describe(error) });
  }
};
process.on('disconnect', () => process.exit(0));
process.on('message', ({ id, event, context: { deadline, ...fields } }) => {
  const context = {
    ...fields,
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
  Promise.resolve()
    .then(() => handler(event, context))
    .then(
      (result) => answer({ id, answer: result ?? null }),
      (error) => {
        process.stderr.write((error instanceof Error ? error.stack : String(error)) + '\\n');
        answer({ id, error: describe(error) });
      },
    );
});
process.send({ ready: true });
`;

/** The invocation time budget when none is given: API Gateway's limit on an HTTP API, 30 s. */
const DEFAULT_TIMEOUT_MS = 30_000;

export interface FunctionOptions {
  /** The function (http, sqs): the process is named `<name> function`. */
  readonly name: string;
  /** The built bundle's path. */
  readonly bundle: string;
  /** The function's whole environment. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Each line the function writes, stdout and stderr, as it writes it. Empty lines are left out. */
  readonly log: (line: string) => void;
  /** The name its context carries. Default `emq-<name>`. */
  readonly functionName?: string;
  /** An invocation's time budget when `invoke` is given none. Default 30000 ms. */
  readonly timeoutMs?: number;
}

export interface InvokeOptions {
  /** The context's awsRequestId. Default: a random UUID. */
  readonly requestId?: string;
  /** The time budget: the context's deadline, after which the invocation fails. */
  readonly timeoutMs?: number;
}

/**
 * Why an invocation has no answer: the process ended under it (or before it), the handler
 * threw, the deadline passed, or the container was stopped.
 */
export type FunctionFailure = 'crashed' | 'failed' | 'timed out' | 'stopped';

/** An invocation that has no answer; the message is a sentence without its final stop. */
export class FunctionError extends Error {
  override readonly name = 'FunctionError';
  constructor(
    readonly failure: FunctionFailure,
    message: string,
  ) {
    super(message);
  }
}

interface Pending {
  readonly resolve: (answer: unknown) => void;
  readonly reject: (error: FunctionError) => void;
  readonly timer: NodeJS.Timeout;
}

/** Starts a container and waits until it has imported its bundle. */
export async function startFunction(
  children: Children,
  options: FunctionOptions,
): Promise<FunctionProcess> {
  const output = { stderr: false };
  const child = await children.start(
    `${options.name} function`,
    process.execPath,
    ['--input-type=module', '-e', CHILD, pathToFileURL(options.bundle).href],
    {
      output: 'pipe',
      ipc: true,
      env: defined(options.env),
      advice: () => (output.stderr ? 'its stderr is above' : 'it wrote nothing to stderr'),
    },
  );
  const { stdout, stderr } = child.process;
  if (stdout !== null) readLines(stdout, options.log);
  if (stderr !== null) {
    readLines(stderr, (line) => {
      output.stderr = true;
      options.log(line);
    });
  }
  const container = new FunctionProcess(children, child, options);
  await container.ready;
  return container;
}

export class FunctionProcess {
  readonly #children: Children;
  readonly #child: StartedChild;
  readonly #options: FunctionOptions;
  readonly #pending = new Map<number, Pending>();
  #next = 0;
  /** How the process ended, once it has. */
  #ended: string | undefined;
  #stopping = false;
  /** Resolves once the bundle is imported; rejects when the process ends first. */
  readonly ready: Promise<void>;

  constructor(children: Children, child: StartedChild, options: FunctionOptions) {
    this.#children = children;
    this.#child = child;
    this.#options = options;
    this.ready = new Promise<void>((resolve, reject) => {
      child.process.on('message', (message: unknown) => {
        if (isObject(message) && message.ready === true) resolve();
        else this.#answered(message);
      });
      void child.exited.then((how) => {
        reject(
          new FunctionError('crashed', `${this.#title} did not start (${how}); ${child.advice()}`),
        );
        this.#ended = how;
        this.#failAll(how);
      });
    });
    // Without a listener a failed send would be thrown here; the exit above says what happened.
    child.process.on('error', () => {});
    // A start that fails is reported by the rejection; this keeps it from also being unhandled.
    this.ready.catch(() => {});
  }

  /** The container's process id. */
  get pid(): number {
    return this.#child.pid;
  }

  /**
   * Invokes the function on `event` (sent as JSON, as Lambda does), resolves with its answer.
   * Rejects with a FunctionError when there is no answer.
   */
  invoke(event: unknown, options: InvokeOptions = {}): Promise<unknown> {
    if (this.#ended !== undefined) {
      return Promise.reject(
        this.#stopping
          ? new FunctionError('stopped', `${this.#title} was stopped`)
          : new FunctionError(
              'crashed',
              `${this.#title} (pid ${this.pid}) is not running: it stopped on its own (${this.#ended})`,
            ),
      );
    }
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const functionName = this.#options.functionName ?? `emq-${this.#options.name}`;
    const id = this.#next++;
    const context = {
      ...contextFields(functionName, options.requestId),
      deadline: Date.now() + timeoutMs,
    };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        // Lambda ends the invocation at its deadline; a late answer is dropped.
        this.#pending.delete(id);
        reject(
          new FunctionError(
            'timed out',
            `${this.#title} did not answer within ${timeoutMs} ms (in Lambda: "Task timed out")`,
          ),
        );
      }, timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      try {
        // A send that fails means the process is ending: its exit fails the invocation.
        this.#child.process.send({ id, event, context }, () => {});
      } catch (error) {
        this.#settle(id)?.reject(
          new FunctionError('failed', `${this.#title} cannot be sent this event: ${String(error)}`),
        );
      }
    });
  }

  /** Ends the container; invocations under way fail as stopped. Resolves once it has exited. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#children.stop(this.#child);
  }

  get #title(): string {
    return `The ${this.#options.name} function`;
  }

  #answered(message: unknown): void {
    if (!isObject(message) || typeof message.id !== 'number') return;
    const pending = this.#settle(message.id);
    if (pending === undefined) return;
    if (isObject(message.error)) {
      const { type, message: text } = message.error;
      pending.reject(
        new FunctionError(
          'failed',
          `${this.#title} threw ${String(type)}: ${String(text)}; its stack is in its stderr`,
        ),
      );
    } else {
      pending.resolve(message.answer);
    }
  }

  #settle(id: number): Pending | undefined {
    const pending = this.#pending.get(id);
    if (pending === undefined) return undefined;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    return pending;
  }

  #failAll(how: string): void {
    const error = this.#stopping
      ? new FunctionError('stopped', `${this.#title} was stopped during the invocation`)
      : new FunctionError(
          'crashed',
          `${this.#title} (pid ${this.pid}) stopped on its own during the invocation (${how}); ${this.#child.advice()}`,
        );
    for (const id of [...this.#pending.keys()]) this.#settle(id)?.reject(error);
  }
}

function readLines(stream: Readable, each: (line: string) => void): void {
  createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
    if (line !== '') each(line);
  });
}

function defined(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
