/** The promise every fault scenario keeps, as one assertion over its figures and audit. */
import { expect } from 'vitest';
import type { ScenarioResult } from './scenario.js';

/**
 * Every request was accepted in the end; every accepted request is in the keyspace exactly
 * once, under the id its caller was told and listed as pending; nothing else was written.
 */
export function expectNothingLostNothingDoubled({ load, audit, figures }: ScenarioResult): void {
  const requests = load.ledger.requests;
  const notAccepted = requests
    .filter((request) => request.settlement !== 'accepted')
    .map((request) => `${request.face}:${request.n} ${request.settlement}`);
  expect({
    notAccepted: notAccepted.slice(0, 10),
    lost: audit.lost.map((request) => `${request.face}:${request.n}`).slice(0, 10),
    doubled: audit.doubled.map((request) => `${request.face}:${request.n}`).slice(0, 10),
    misdirected: audit.misdirected.map((request) => `${request.face}:${request.n}`).slice(0, 10),
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
  expect(figures.rows).toBe(requests.length);
  expect(audit.pending).toBe(requests.length);
}
