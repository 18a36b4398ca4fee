/**
 * The processes the stack starts, so that stopping it stops every one of them: SIGTERM first
 * (Valkey flushes its append-only file), SIGKILL for any that outlive the grace period.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { deathGuard } from '../valkey/death-guard.js';

export interface Child {
  readonly name: string;
  readonly pid: number;
  /** Resolves when the process has exited, with how it ended. */
  readonly exited: Promise<string>;
}

export interface SpawnOptions {
  /** Where the child's stdout and stderr go. Default: ignored. */
  readonly output?: 'ignore' | 'inherit';
}

export class Children {
  readonly #running = new Map<ChildProcess, Child>();
  #onUnexpectedExit: (child: Child, how: string) => void = () => {};
  #stopping = false;

  /** Called when a child exits while the stack is not stopping. */
  onUnexpectedExit(listener: (child: Child, how: string) => void): void {
    this.#onUnexpectedExit = listener;
  }

  /** Starts a long-running process that lives as long as the stack. */
  async start(
    name: string,
    command: string,
    args: readonly string[],
    options: SpawnOptions = {},
  ): Promise<Child> {
    // A Ctrl-C during start-up must not be followed by a process nobody will stop.
    if (this.#stopping) throw new Error(`Not starting ${name}: the stack is stopping.`);
    const [file = command, ...rest] = [...deathGuard(), command, ...args];
    const output = options.output ?? 'ignore';
    // Its own process group: Ctrl-C in the terminal reaches this script only, which then
    // stops the children in order (HTTP first, then Valkey) instead of racing them.
    const child = spawn(file, rest, { stdio: ['ignore', output, output], detached: true });
    const exited = new Promise<string>((resolve) => {
      child.once('exit', (code, signal) =>
        resolve(signal ? `killed by ${signal}` : `exit code ${code}`),
      );
      child.once('error', (error) => resolve(`not started: ${error.message}`));
    });
    const entry: Child = { name, pid: child.pid ?? 0, exited };
    // Registered before anything is awaited, so a stop that begins now still ends it.
    this.#running.set(child, entry);
    void exited.then((how) => {
      this.#running.delete(child);
      if (!this.#stopping && child.pid !== undefined) this.#onUnexpectedExit(entry, how);
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

  /** Stops every child: SIGTERM, then SIGKILL after `graceMs`. Resolves when all have exited. */
  async stopAll(graceMs = 10_000): Promise<void> {
    this.#stopping = true;
    const running = [...this.#running];
    for (const [child] of running) child.kill('SIGTERM');
    const all = Promise.all(running.map(([, entry]) => entry.exited));
    const late = await Promise.race([all.then(() => false), sleep(graceMs).then(() => true)]);
    if (late) {
      for (const [child] of this.#running) child.kill('SIGKILL');
      await all;
    }
  }

  /** Kills every child at once (a second Ctrl-C). */
  killAll(): void {
    this.#stopping = true;
    for (const [child] of this.#running) child.kill('SIGKILL');
  }
}
