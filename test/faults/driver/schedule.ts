/**
 * When the fault strikes, per face: the first share of a face's requests goes out freely; the
 * fault starts once every face has sent that share; the middle share is held until the fault
 * is in effect, so both faces send into it; the last share is held until the fault is over, so
 * every scenario also shows the system serving normally afterwards.
 */

/** The fault: it calls `inEffect()` once applied, and resolves once the system should be whole. */
export type Fault = (inEffect: () => void) => Promise<void>;

export type Phase = 'before' | 'during' | 'after';

export interface ScheduleOptions {
  /** Requests per face (HTTP, SQS). Required. */
  readonly counts: readonly number[];
  /** The fault. Default: none, so every request is `before`. */
  readonly fault?: Fault | undefined;
  /** Share of each face's requests sent before the fault. Default 1/3. */
  readonly before?: number;
  /** Share of each face's requests sent while the fault is in effect. Default 1/3. */
  readonly during?: number;
}

export class Schedule {
  readonly #fault: Fault | undefined;
  readonly #before: number;
  readonly #during: number;
  readonly #threshold: number;
  readonly #applied = deferred();
  readonly #ended = deferred();
  #handedOut = 0;
  #started = false;
  #inEffect = false;
  #over = false;
  #failure: unknown;

  constructor(options: ScheduleOptions) {
    this.#fault = options.fault;
    this.#before = options.before ?? 1 / 3;
    this.#during = options.during ?? 1 / 3;
    this.#threshold = options.counts.reduce(
      (sum, count) => sum + Math.floor(count * this.#before),
      0,
    );
    if (this.#fault === undefined) this.#finish();
    else if (this.#threshold === 0) this.#start();
  }

  /** The phase of a face's request `index` out of `count`. */
  phaseOf(index: number, count: number): Phase {
    if (this.#fault === undefined || index < Math.floor(count * this.#before)) return 'before';
    return index < Math.floor(count * (this.#before + this.#during)) ? 'during' : 'after';
  }

  /** True when a request of `phase` may go now. */
  mayGo(phase: Phase): boolean {
    if (phase === 'during') return this.#inEffect;
    if (phase === 'after') return this.#over;
    return true;
  }

  /** Resolves when a request of `phase` may go. */
  async waitFor(phase: Phase): Promise<void> {
    if (phase === 'during') await this.#applied.promise;
    if (phase === 'after') await this.#ended.promise;
  }

  /** Counts a request handed out; the first share's last one starts the fault. */
  handOut(): void {
    this.#handedOut += 1;
    if (this.#handedOut >= this.#threshold && !this.#started) this.#start();
  }

  /**
   * True once the fault has failed: the scenario has failed with it, so the load stops sending
   * instead of retrying against servers the fault left broken until the test times out.
   */
  get abandoned(): boolean {
    return this.#failure !== undefined;
  }

  /** Where the fault is, for a report on a scenario that runs long. */
  get state(): string {
    if (this.#failure !== undefined) return `failed: ${String(this.#failure)}`;
    if (this.#over) return 'over';
    if (this.#inEffect) return 'in effect';
    return this.#started ? 'being applied' : 'not started';
  }

  /** Waits for the fault to have run and rethrows what it threw. */
  async settled(): Promise<void> {
    await this.#ended.promise;
    if (this.#failure !== undefined) throw this.#failure;
  }

  #start(): void {
    this.#started = true;
    const fault = this.#fault;
    if (fault === undefined) return;
    void fault(() => this.#apply())
      .catch((error: unknown) => {
        this.#failure = error;
      })
      .finally(() => this.#finish());
  }

  #apply(): void {
    this.#inEffect = true;
    this.#applied.resolve();
  }

  #finish(): void {
    this.#apply();
    this.#over = true;
    this.#ended.resolve();
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
