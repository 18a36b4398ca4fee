/**
 * The figures of a scenario: per face what was sent and answered, and what the keyspace holds.
 * Printed as a small table; with EMQ_FAULTS_REPORT set, also appended to that file as one JSON
 * line, for the figures of a full run.
 */
import { appendFileSync } from 'node:fs';
import type { Audit } from './audit.js';
import { PROMISE_TEXT, type Promised } from './expectations.js';
import type { Face } from './ledger.js';
import type { LoadResult } from './load.js';
import { settings } from './settings.js';

export interface FaceFigures {
  readonly face: Face;
  readonly requests: number;
  /** HTTP 2xx, or SQS records left out of batchItemFailures. */
  readonly accepted: number;
  /** HTTP 503 answers, or SQS batch item failures. */
  readonly retryableAnswers: number;
  /** Resends: HTTP retries with the same key, SQS redeliveries. */
  readonly retries: number;
  /** Requests that needed at least one resend. */
  readonly retriedRequests: number;
  readonly refused: number;
  readonly gaveUp: number;
  /** The longest a caller waited for any answer, in ms: a fault must not turn into a hang. */
  readonly slowestAnswerMs: number;
}

export interface Figures {
  readonly scenario: string;
  /** The promise the scenario's settings make, which its test asserts. */
  readonly promise: string;
  readonly durationMs: number;
  readonly faces: readonly FaceFigures[];
  readonly rows: number;
  /** Acknowledged requests with no row: counted, and asserted zero only where promised. */
  readonly lost: number;
  readonly doubled: number;
  readonly strangers: number;
  readonly misdirected: number;
  /** Answers that were not acceptances, by face, status or outcome, and code. */
  readonly answers: Readonly<Record<string, number>>;
}

export function figuresOf(
  scenario: string,
  promise: Promised,
  load: LoadResult,
  audit: Audit,
): Figures {
  const faces = (['http', 'sqs'] as const).map((face): FaceFigures => {
    const requests = load.ledger.of(face);
    const count = (settlement: string) =>
      requests.filter((request) => request.settlement === settlement).length;
    return {
      face,
      requests: requests.length,
      accepted: count('accepted'),
      retryableAnswers: sum(requests.map((request) => request.retryable)),
      retries: sum(requests.map((request) => Math.max(0, request.attempts - 1))),
      retriedRequests: requests.filter((request) => request.attempts > 1).length,
      refused: count('refused'),
      gaveUp: count('gave-up'),
      slowestAnswerMs: Math.round(
        requests.reduce((slowest, request) => Math.max(slowest, request.slowestMs), 0),
      ),
    };
  });
  return {
    scenario,
    promise: PROMISE_TEXT[promise.kind],
    durationMs: load.durationMs,
    faces,
    rows: audit.rows,
    lost: audit.lost.length,
    doubled: audit.doubled.length,
    strangers: audit.strangers.length,
    misdirected: audit.misdirected.length,
    answers: Object.fromEntries([...load.ledger.answers].sort()),
  };
}

/** Prints the figures and, with EMQ_FAULTS_REPORT set, appends them to that file. */
export function publish(figures: Figures): void {
  const header =
    'face  requests  accepted  retryable  retries  retried  refused  gave-up  slowest(ms)';
  const lines = figures.faces.map((f) =>
    [
      f.face.padEnd(4),
      pad(f.requests, 9),
      pad(f.accepted, 9),
      pad(f.retryableAnswers, 10),
      pad(f.retries, 8),
      pad(f.retriedRequests, 8),
      pad(f.refused, 8),
      pad(f.gaveUp, 8),
      pad(f.slowestAnswerMs, 12),
    ].join(' '),
  );
  const keyspace = `rows ${figures.rows}, lost (acknowledged, no row) ${figures.lost}, doubled ${figures.doubled}, strangers ${figures.strangers}, misdirected ${figures.misdirected}`;
  const answers = Object.entries(figures.answers)
    .map(([label, count]) => `${label}: ${count}`)
    .join(', ');
  console.info(
    [
      `[faults] ${figures.scenario} (${figures.durationMs} ms)`,
      `promise: ${figures.promise}`,
      header,
      ...lines,
      keyspace,
      `answers: ${answers || 'none'}`,
    ].join('\n'),
  );
  const file = settings.reportFile;
  if (file !== undefined) appendFileSync(file, `${JSON.stringify(figures)}\n`);
}

function pad(value: number, width: number): string {
  return String(value).padStart(width);
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
