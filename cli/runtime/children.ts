/**
 * The processes the stack starts, so that stopping it stops every one of them: SIGTERM first
 * (Valkey flushes its append-only file), SIGKILL for any that outlive the grace period.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { deathGuard } from './death-guard.js';

export interface Child {
  readonly name: string;
  readonly pid: number;
  /** Resolves when the process has exited and its output is read, with how it ended. */
  readonly exited: Promise<string>;
  /** Where to look to learn why it ended (its log file, its stderr). */
  readonly advice: () => string;
}

/** A child as its starter sees it: with the process, to talk to it and read its output. */
export interface StartedChild extends Child {
  readonly process: ChildProcess;
}

export interface SpawnOptions {
  /**
   * Where the child's stdout and stderr go; 'pipe' leaves them for the caller to read.
   * Default: ignored.
   */
  readonly output?: 'ignore' | 'inherit' | 'pipe';
  /** An IPC channel to the child (process.send in it). Default false. */
  readonly ipc?: boolean;
  /** The child's whole environment. Default: this process's. */
  readonly env?: Readonly<Record<string, string>>;
  /** What `advice` says. Default: nothing to look at. */
  readonly advice?: () => string;
}

/** How long a stopped child has between SIGTERM and SIGKILL. */
const GRACE_MS = 10_000;

export class Children {
  readonly #running = new Map<ChildProcess, Child>();
  /** The children being stopped one by one: their exit is expected. */
  readonly #ending = new Set<Child>();
  #onUnexpectedExit: (child: Child, how: string) => void = () => {};
  #stopping = false;

  /** Called when a child exits while the stack is not stopping (nor stopping that child). */
  onUnexpectedExit(listener: (child: Child, how: string) => void): void {
    this.#onUnexpectedExit = listener;
  }

  /** Starts a long-running process that lives as long as the stack. */
  async start(
    name: string,
    command: string,
    args: readonly string[],
    options: SpawnOptions = {},
  ): Promise<StartedChild> {
    // A Ctrl-C during start-up must not be followed by a process nobody will stop.
    if (this.#stopping) throw new Error(`Not starting ${name}: the stack is stopping.`);
    const [file = command, ...rest] = [...deathGuard(), command, ...args];
    const output = options.output ?? 'ignore';
    // Its own process group: Ctrl-C in the terminal reaches this script only, which then
    // stops the children in order (HTTP first, then Valkey) instead of racing them.
    const child = spawn(file, rest, {
      stdio: options.ipc === true ? ['ignore', output, output, 'ipc'] : ['ignore', output, output],
      detached: true,
      ...(options.env === undefined ? {} : { env: options.env }),
    });
    // 'close', not 'exit': by then its piped output has been read to the end, so whoever is
    // told it ended has seen every line it wrote.
    const exited = new Promise<string>((resolve) => {
      child.once('close', (code, signal) =>
        resolve(signal ? `killed by ${signal}` : `exit code ${code}`),
      );
      child.once('error', (error) => resolve(`not started: ${error.message}`));
    });
    const entry: StartedChild = {
      name,
      pid: child.pid ?? 0,
      exited,
      advice: options.advice ?? (() => 'it left nothing to read'),
      process: child,
    };
    // Registered before anything is awaited, so a stop that begins now still ends it.
    this.#running.set(child, entry);
    void exited.then((how) => {
      this.#running.delete(child);
      const expected = this.#stopping || this.#ending.delete(entry);
      if (!expected && child.pid !== undefined) this.#onUnexpectedExit(entry, how);
    });
    if (child.pid === undefined) {
      throw new Error(`Cannot start ${command}: ${await exited}.`);
    }
    return entry;
  }

  /** The children still running. */
  list(): Child[] {
    return [...this.#running.values()];
  }

  /** Stops one child as stopAll does; its exit is not reported. Resolves when it has exited. */
  async stop(entry: Child, graceMs = GRACE_MS): Promise<void> {
    const running = [...this.#running].find(([, each]) => each === entry);
    if (running === undefined) return;
    this.#ending.add(entry);
    await this.#end([running], graceMs);
  }

  /** Stops every child: SIGTERM, then SIGKILL after `graceMs`. Resolves when all have exited. */
  async stopAll(graceMs = GRACE_MS): Promise<void> {
    this.#stopping = true;
    await this.#end([...this.#running], graceMs);
  }

  /** Kills every child at once (a second Ctrl-C). */
  killAll(): void {
    this.#stopping = true;
    for (const [child] of this.#running) child.kill('SIGKILL');
  }

  async #end(running: readonly [ChildProcess, Child][], graceMs: number): Promise<void> {
    for (const [child] of running) child.kill('SIGTERM');
    const all = Promise.all(running.map(([, entry]) => entry.exited));
    // Not ref'd: a one-shot caller (emq sqs) exits once its children have, not after the grace.
    const grace = sleep(graceMs, true, { ref: false });
    const late = await Promise.race([all.then(() => false), grace]);
    if (late) {
      for (const [child] of running) if (this.#running.has(child)) child.kill('SIGKILL');
      await all;
    }
  }
}
