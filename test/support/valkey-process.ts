import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnValkey } from '../../scripts/valkey/spawn.js';
import type { LogRing } from './log-ring.js';

const DRAIN_MS = 200;

/** One run of valkey-server; a restart makes a new one. */
export class ValkeyProcess {
  readonly exited: Promise<void>;
  readonly #child: ChildProcess;
  #status: string | undefined;

  constructor(args: readonly string[], log: LogRing) {
    // The shared launcher: EMQ_VALKEY_BIN's server (else PATH's), under the death guard.
    this.#child = spawnValkey('valkey-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child.stdout?.on('data', (chunk: Buffer) => log.write(chunk));
    this.#child.stderr?.on('data', (chunk: Buffer) => log.write(chunk));
    this.exited = new Promise((resolve) => {
      this.#child.once('exit', (code, signal) => {
        this.#status = signal ? `killed by ${signal}` : `exit code ${code}`;
        // The last log lines (why it died) may still be in the pipes; but a server's fork
        // (AOF rewrite) can hold them open after the server is gone, so wait only briefly.
        const drained = new Promise((closed) => this.#child.once('close', closed));
        void Promise.race([drained, sleep(DRAIN_MS)]).then(() => resolve());
      });
      this.#child.once('error', (error) => {
        if (this.#child.pid !== undefined) return;
        this.#status = `could not be spawned: ${error.message}`;
        resolve();
      });
    });
  }

  get pid(): number | undefined {
    return this.running ? this.#child.pid : undefined;
  }

  get running(): boolean {
    return this.#status === undefined;
  }

  /** How the process ended, or undefined while it runs. */
  get status(): string | undefined {
    return this.#status;
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) this.#child.kill(signal);
  }
}
