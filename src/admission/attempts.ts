/**
 * What the earlier attempts of one admission within an invocation tell about its answer. A
 * call whose reply was lost (a timeout, a closed connection: written `maybe`, naming the id it
 * proposed) may have written its job; when the same call sent again then answers `0` (the
 * key's record names a job), that job is this invocation's own write if it is the id such an
 * attempt proposed: a minted id is fresh to its attempt, so no one else can have written it.
 * The answer is then what the first attempt would have said, `enqueued`, not `duplicate`. A
 * caller's own id proves nothing (a replay of it names the same id): it stays `duplicate`.
 */
import { MINTED_ID } from '../families/family.js';
import { EmqError } from '../outcomes/outcomes.js';
import type { AdmissionResult, Item } from './admission-calls.js';

/** The earlier attempts of every admission of one batch, by the request's index. */
export class Attempts {
  /** The last failure that may have been written, kept when a later attempt wrote nothing. */
  readonly #maybe = new Map<number, EmqError>();
  /** Minted ids proposed by attempts whose reply was lost. */
  readonly #proposed = new Map<number, Set<string>>();
  /** The requests keyed by the invocation itself (no key, no id): only it can have written them. */
  readonly #ownKeys: ReadonlySet<number>;

  /** `earlier`: the results of an earlier reconnect window of this invocation, by index. */
  constructor(
    ownKeys: ReadonlySet<number>,
    items: readonly Item[],
    earlier: readonly (AdmissionResult | undefined)[] = [],
  ) {
    this.#ownKeys = ownKeys;
    for (const item of items) {
      const result = earlier[item.index];
      if (result !== undefined) this.note(item.index, result, item.idSource === MINTED_ID);
    }
  }

  /**
   * Notes an attempt's result. `minted` says the id it proposed was minted for it (no caller id),
   * and so names a job only this invocation can have written.
   */
  note(index: number, result: AdmissionResult, minted: boolean): void {
    if (!(result instanceof EmqError) || result.written === 'no') return;
    this.#maybe.set(index, result);
    // `yes` names the id a reply gave, which may be an earlier request's: only `maybe` names
    // the proposal itself.
    if (!minted || result.written !== 'maybe' || result.jobId === undefined) return;
    const ids = this.#proposed.get(index);
    if (ids === undefined) this.#proposed.set(index, new Set([result.jobId]));
    else ids.add(result.jobId);
  }

  /**
   * An admission's last result, told what earlier attempts did: a refusal of a later attempt
   * still says what an earlier one may have written (and names its job), and a duplicate of a
   * job this invocation wrote is the job it wrote.
   */
  settled(index: number, result: AdmissionResult): AdmissionResult {
    if (!(result instanceof EmqError)) {
      if (result.status !== 'duplicate') return result;
      const own = this.#ownKeys.has(index) || this.#proposed.get(index)?.has(result.id) === true;
      return own ? { ...result, status: 'enqueued' } : result;
    }
    const earlier = this.#maybe.get(index);
    if (earlier === undefined || result.written !== 'no' || !result.retryable) return result;
    return earlier;
  }
}
