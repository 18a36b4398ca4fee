/**
 * One line per request that is both its log line and its EMF metrics. Only fields chosen here are written:
 * never the payload, an error's message or stack, nor anything from its cause but class
 * and code (a message can name a host).
 */

import { causeOf } from '../../src/outcomes/outcome-rules.js';
import { EmqError } from '../../src/outcomes/outcomes.js';
import { errorFields, type Fields, type Level, log } from '../shared/log.js';
import { metricsFields } from '../shared/metrics.js';
import { routeName } from './routes.js';
import type { Served } from './serve.js';

export function report(served: Served, requestId: string, durationMs: number): void {
  const status = served.response.statusCode;
  const duration = Math.round(durationMs * 100) / 100;
  log(
    levelOf(status),
    'http request',
    {
      requestId,
      format: served.format,
      route: served.operation === undefined ? 'unmatched' : routeName(served.operation),
      queue: served.queue,
      id: served.jobId,
      status,
      outcome: served.kind,
      durationMs: duration,
      ...(served.batch === undefined
        ? {}
        : {
            items: served.batch.items,
            enqueued: served.batch.enqueued,
            duplicate: served.batch.duplicate,
            failed: served.batch.failed,
          }),
      ...(served.error === undefined ? {} : failureFields(served.error)),
    },
    metricsFields({ Face: 'http', Outcome: served.kind }, [
      { name: 'Requests', value: 1, unit: 'Count' },
      { name: 'Latency', value: duration, unit: 'Milliseconds' },
      // The 5xx of every front, API Gateway's or not (a Function URL, the team's API).
      { name: 'ServerErrors', value: status >= 500 ? 1 : 0, unit: 'Count' },
      { name: 'AdmittedJobs', value: admittedJobs(served), unit: 'Count' },
    ]),
  );
}

/** Jobs the request put into the keyspace: a batch's enqueued items, or the one job. */
function admittedJobs(served: Served): number {
  if (served.batch !== undefined) return served.batch.enqueued;
  return served.kind === 'enqueued' ? 1 : 0;
}

/** Retryable failures are expected in a failover: a warning, not an error page. */
function levelOf(status: number): Level {
  if (status === 503) return 'warn';
  return status >= 500 ? 'error' : 'info';
}

/**
 * A failure's operator fields: its class and code, the message where the outcome table keeps
 * it from callers (node ids, wire identities, setting names: written by this project, never an
 * endpoint or a credential), and its cause as a code and the server's text without addresses.
 */
function failureFields(error: unknown): Fields {
  const detail = error instanceof EmqError && error.operatorOnly ? { detail: error.message } : {};
  const { causeCode, causeText } = causeOf(error);
  return { ...errorFields(error), ...detail, cause: causeCode, causeText };
}
