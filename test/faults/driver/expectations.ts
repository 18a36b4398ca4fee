/**
 * What a fault scenario's settings promise, and the one assertion of it over the scenario's
 * figures and audit. A scenario asserts its settings' promise and no more: with
 * `EMQ_ACK_REPLICAS=0` replication is asynchronous, so a primary that fails before its replica
 * took a write may lose that acknowledged write (docs/reliability.md, "Acknowledgements"). Such
 * losses are counted in the scenario's figures, not asserted away; everything else stays strict.
 */
import { expect } from 'vitest';
import type { ScenarioResult } from './scenario.js';

export type Promised =
  /**
   * An acknowledgement outlives the fault: acks 1 (a replica holds it), an fsynced AOF, a
   * coordinated handover (CLUSTER FAILOVER moves clients only once the heir has the whole
   * replication stream), or a fault after which the same node serves on with its memory.
   */
  | { readonly kind: 'nothing-lost' }
  /**
   * Acks 0 through a primary's failure and its replica's promotion: the failed primary's
   * acknowledgements its replica had not received may be lost, on the `struck` queues (those
   * it served) only.
   */
  | { readonly kind: 'unreplicated-may-be-lost'; readonly struck: readonly string[] };

/** The promise as test names and figures state it. */
export const PROMISE_TEXT: Readonly<Record<Promised['kind'], string>> = {
  'nothing-lost': 'loses and doubles nothing',
  'unreplicated-may-be-lost': 'doubles nothing, loses only unreplicated acknowledgements (counted)',
};

export const NOTHING_LOST: Promised = { kind: 'nothing-lost' };

/** What a primary's failure and its replica's promotion may cost under `EMQ_ACK_REPLICAS`. */
export function promotionKind(acks: '0' | '1'): Promised['kind'] {
  return acks === '0' ? 'unreplicated-may-be-lost' : 'nothing-lost';
}

/** The promise through a promotion; `struck` are the queues the failed primary served. */
export function throughPromotion(acks: '0' | '1', struck: readonly string[]): Promised {
  return acks === '0' ? { kind: 'unreplicated-may-be-lost', struck } : NOTHING_LOST;
}

/**
 * Holds the scenario to its promise. Always: every request was accepted in the end (nothing
 * refused, nobody gave up); no request has two rows, whether it was acknowledged or not; every
 * row is under the id its caller was told and listed as pending; nothing else was written.
 * Nothing acknowledged is missing, unless the promise allows it, and then only on the struck
 * queues: a primary that did not fail loses nothing under any settings.
 */
export function expectPromiseKept({ load, audit, figures, promise }: ScenarioResult): void {
  const requests = load.ledger.requests;
  const name = (request: { face: string; n: number }) => `${request.face}:${request.n}`;
  const notAccepted = requests
    .filter((request) => request.settlement !== 'accepted')
    .map((request) => `${name(request)} ${request.settlement}`);
  const mayLose =
    promise.kind === 'unreplicated-may-be-lost' ? new Set(promise.struck) : new Set<string>();
  const lostUnpromised = audit.lost.filter((request) => !mayLose.has(request.queue));
  expect({
    notAccepted: notAccepted.slice(0, 10),
    lost: lostUnpromised.map(name).slice(0, 10),
    doubled: audit.doubled.map(name).slice(0, 10),
    misdirected: audit.misdirected.map(name).slice(0, 10),
    strangers: audit.strangers.slice(0, 10),
    unacknowledged: audit.unacknowledged.slice(0, 10),
    unlisted: audit.unlisted.slice(0, 10),
    orphans: audit.orphans.slice(0, 10),
  }).toEqual({
    notAccepted: [],
    lost: [],
    doubled: [],
    misdirected: [],
    strangers: [],
    unacknowledged: [],
    unlisted: [],
    orphans: [],
  });
  // Every request has its one row but those counted lost; each row is listed as pending.
  expect(figures.rows).toBe(requests.length - audit.lost.length);
  expect(audit.pending).toBe(figures.rows);
}
