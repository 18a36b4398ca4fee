/**
 * The load driver: N logical enqueues through the real handlers, half as API requests and half
 * as SQS messages, spread over the scenario's queues, with a fault injected part-way through.
 * It returns once every request is settled (accepted, refused or given up) and the fault is over.
 */
import { type RetryPolicy, sendHttp } from './http-client.js';
import { Ledger } from './ledger.js';
import { LogTap } from './log-tap.js';
import { Schedule } from './schedule.js';
import { type RedeliveryPolicy, SqsSource } from './sqs-source.js';

/**
 * The fault as the load runs it: `inEffect()` once applied, resolving once the system should be
 * whole. It may watch the ledger, so a fault held "until callers heard retry" ends on that
 * condition rather than after a guessed sleep. A fault that ignores the ledger is one too.
 */
export type LoadFault = (inEffect: () => void, ledger: Ledger) => Promise<void>;

export interface LoadOptions {
  /** Logical requests, split evenly between HTTP and SQS. Required. */
  readonly requests: number;
  /** The queues the requests go to, in turn. Required. */
  readonly queues: readonly string[];
  /** The fault, started part-way (see Schedule). Default: none. */
  readonly fault?: LoadFault | undefined;
  /** Concurrent API clients. Default 8. */
  readonly httpClients?: number;
  /** Concurrent SQS pollers (the event source mapping's concurrency). Default 2. */
  readonly sqsPollers?: number;
  /** How API clients retry. Default: see RetryPolicy. */
  readonly http?: RetryPolicy | undefined;
  /** How SQS redelivers. Default: see RedeliveryPolicy. */
  readonly sqs?: RedeliveryPolicy | undefined;
}

export interface LoadResult {
  readonly ledger: Ledger;
  readonly durationMs: number;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { requests, queues } = options;
  if (queues.length === 0) throw new Error('runLoad needs at least one queue');
  const ledger = new Ledger();
  const httpCount = Math.ceil(requests / 2);
  for (let n = 0; n < httpCount; n++) ledger.add('http', n, queues[n % queues.length] as string);
  for (let n = 0; n < requests - httpCount; n++) {
    ledger.add('sqs', n, queues[(n + 1) % queues.length] as string);
  }

  const api = ledger.of('http');
  const messages = ledger.of('sqs');
  const { fault } = options;
  const schedule = new Schedule({
    counts: [api.length, messages.length],
    fault: fault === undefined ? undefined : (inEffect) => fault(inEffect, ledger),
  });
  const tap = new LogTap();
  const sqs = new SqsSource(messages, ledger, schedule, tap, options.sqs);
  let next = 0;
  const client = async (): Promise<void> => {
    for (;;) {
      const at = next++;
      const request = api[at];
      if (request === undefined || schedule.abandoned) return;
      await schedule.waitFor(schedule.phaseOf(at, api.length));
      schedule.handOut();
      await sendHttp(request, ledger, options.http, () => schedule.abandoned);
    }
  };

  const started = performance.now();
  // A scenario that runs long says where it is, so a test timeout is not all its log holds.
  const report = setInterval(() => {
    const seconds = Math.round((performance.now() - started) / 1000);
    console.warn(`[faults] still running after ${seconds} s: ${progressOf(ledger, schedule)}`);
  }, PROGRESS_REPORT_MS);
  report.unref();
  tap.open();
  let outcomes: PromiseSettledResult<void>[];
  try {
    // Every worker runs to its end even when the fault fails, so nothing is left sending.
    outcomes = await Promise.allSettled([
      ...times(options.httpClients ?? 8, client),
      ...times(options.sqsPollers ?? 2, () => sqs.poll()),
      schedule.settled(),
    ]);
  } finally {
    clearInterval(report);
    tap.close();
  }
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
  return { ledger, durationMs: Math.round(performance.now() - started) };
}

/** How often a scenario still running reports its progress: far past a normal scenario's length. */
const PROGRESS_REPORT_MS = 30_000;

function progressOf(ledger: Ledger, schedule: Schedule): string {
  const open = (['http', 'sqs'] as const).map((face) => {
    const requests = ledger.of(face).filter((request) => request.settlement === 'open');
    const attempts = requests.reduce((most, request) => Math.max(most, request.attempts), 0);
    return `${face} ${requests.length} open (most attempts ${attempts})`;
  });
  const answers = [...ledger.answers].map(([label, count]) => `${label}: ${count}`).join(', ');
  return `fault ${schedule.state}; ${open.join(', ')}; answers so far: ${answers || 'none'}`;
}

function times(count: number, run: () => Promise<void>): Promise<void>[] {
  return Array.from({ length: count }, run);
}
