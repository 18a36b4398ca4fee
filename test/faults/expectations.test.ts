// The promise the fault scenarios assert, held against made-up outcomes: with acks 0 through a
// promotion, acknowledged requests missing from the failed primary's queues are counted and
// pass; one missing anywhere else, or any double, fails; every other setting loses nothing.
import { describe, expect, it } from 'vitest';
import type { Audit } from './driver/audit.js';
import { expectPromiseKept, NOTHING_LOST, type Promised } from './driver/expectations.js';
import { figuresOf } from './driver/figures.js';
import { Ledger, type LogicalRequest } from './driver/ledger.js';
import type { ScenarioResult } from './driver/scenario.js';

/** Four accepted requests, two on the struck queue; `missing` of them have no row. */
function outcome(
  promise: Promised,
  missing: (request: LogicalRequest) => boolean,
  doubled = false,
): ScenarioResult {
  const ledger = new Ledger();
  for (let n = 0; n < 4; n++) {
    const request = ledger.add('http', n, n < 2 ? 'struck' : 'spared');
    request.settlement = 'accepted';
    request.toldId = `id-${n}`;
  }
  const lost = ledger.requests.filter(missing);
  const rows = ledger.requests.length - lost.length;
  const audit: Audit = {
    rows,
    pending: rows,
    lost,
    doubled: doubled ? ledger.requests.slice(0, 1) : [],
    strangers: [],
    unacknowledged: [],
    misdirected: [],
    unlisted: [],
    orphans: [],
  };
  const load = { ledger, durationMs: 1 };
  return { load, audit, figures: figuresOf('made up', promise, load, audit), promise };
}

/** What the failed assertion found (its `actual`), or undefined when the promise was kept. */
function brokenBy(result: ScenarioResult): unknown {
  try {
    expectPromiseKept(result);
  } catch (error) {
    return (error as { actual?: unknown }).actual ?? error;
  }
  return undefined;
}

const UNREPLICATED: Promised = { kind: 'unreplicated-may-be-lost', struck: ['struck'] };

describe('the promise of acks 0 through a promotion', () => {
  it('passes with acknowledged requests missing on the struck queues, and counts them', () => {
    const result = outcome(UNREPLICATED, (request) => request.queue === 'struck');
    expect(result.figures.lost).toBe(2);
    expect(brokenBy(result)).toBeUndefined();
  });

  it('fails when an acknowledged request is missing on a queue the failure did not strike', () => {
    const result = outcome(UNREPLICATED, (request) => request.n === 3);
    expect(brokenBy(result)).toMatchObject({ lost: ['http:3'] });
  });

  it('fails when a request has two rows', () => {
    expect(brokenBy(outcome(UNREPLICATED, () => false, true))).toMatchObject({
      doubled: ['http:0'],
    });
  });
});

describe('the promise to lose nothing', () => {
  it('fails when any acknowledged request is missing, on any queue', () => {
    const result = outcome(NOTHING_LOST, (request) => request.n === 0);
    expect(brokenBy(result)).toMatchObject({ lost: ['http:0'] });
  });

  it('passes when every request has its one row', () => {
    expect(brokenBy(outcome(NOTHING_LOST, () => false))).toBeUndefined();
  });
});
