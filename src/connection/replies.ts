/**
 * The replies of one socket write, settled once (by the server's replies or by the command
 * timeout), and the one timer per connection that stands for a timer per command. Nothing
 * here knows the client library: transport.ts feeds it.
 */

/** A reply: the server's value, or the Error for that command. */
export type Reply = unknown;

/** The replies of one write: settled once, whether by the server or by the timeout. */
export class Write {
  readonly replies: Reply[];
  #left: number;
  #resolve: ((replies: Reply[]) => void) | undefined;
  /** When the timeout applies, in performance.now() ms. */
  deadline = 0;
  /** The connection's deadlines that hold this write until it settles. */
  owner: Deadlines | undefined;

  constructor(size: number, resolve: (replies: Reply[]) => void) {
    this.replies = new Array(size);
    this.#left = size;
    this.#resolve = resolve;
  }

  get settled(): boolean {
    return this.#resolve === undefined;
  }

  /**
   * Records command `at`'s reply; the last one settles the write. A reply read after the
   * deadline (the timer, starved of CPU, had not fired yet) settles the write as the timeout
   * would have: a write answered that late is "may have been written", never a success, so a
   * primary that resumes after a failover cannot acknowledge what its heir never received.
   */
  settle(at: number, reply: Reply): void {
    if (this.#resolve === undefined) return;
    if (this.deadline > 0 && performance.now() > this.deadline) {
      this.expire();
      return;
    }
    this.replies[at] = reply;
    this.#left -= 1;
    if (this.#left === 0) this.#finish();
  }

  /** Every reply still missing becomes iovalkey's own timeout error. */
  expire(): void {
    if (this.#resolve === undefined) return;
    for (let at = 0; at < this.replies.length; at++) {
      if (!(at in this.replies)) this.replies[at] = new Error('Command timed out');
    }
    this.#finish();
  }

  #finish(): void {
    const resolve = this.#resolve;
    this.#resolve = undefined;
    this.owner?.release();
    resolve?.(this.replies);
  }
}

/**
 * One timer per connection for every write in flight on it. Replies come in write order, so
 * the oldest unsettled write is the first to time out: the timer waits for its deadline, and
 * a write that settles in time costs a push and a shift, not a setTimeout and clearTimeout.
 */
export class Deadlines {
  readonly #waiting: Write[] = [];
  #timer: NodeJS.Timeout | undefined;

  add(write: Write, timeoutMs: number): void {
    write.deadline = performance.now() + timeoutMs;
    write.owner = this;
    this.#waiting.push(write);
    // An idle connection's timer has run out; a busy one's fires at its oldest deadline.
    this.#timer ??= this.#arm(timeoutMs);
  }

  /** Drops the settled writes at the head: replies settle writes in order, so usually the head. */
  release(): void {
    const waiting = this.#waiting;
    while (waiting.length > 0 && (waiting[0] as Write).settled) waiting.shift();
  }

  #arm(ms: number): NodeJS.Timeout {
    // Unref'd: a write in flight keeps its socket, and so the process, alive anyway.
    return setTimeout(() => this.#check(), Math.max(0, ms)).unref();
  }

  #check(): void {
    this.#timer = undefined;
    const now = performance.now();
    const waiting = this.#waiting;
    while (waiting.length > 0) {
      const head = waiting[0] as Write;
      if (!head.settled && head.deadline > now) break;
      waiting.shift();
      head.expire();
    }
    if (waiting.length > 0) this.#timer = this.#arm((waiting[0] as Write).deadline - now);
  }
}

/** The parts in one buffer, allocated once. */
export function joined(parts: readonly (string | Buffer)[]): Buffer {
  let total = 0;
  for (const part of parts)
    total += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (const part of parts)
    at += typeof part === 'string' ? out.write(part, at) : part.copy(out, at);
  return out;
}
