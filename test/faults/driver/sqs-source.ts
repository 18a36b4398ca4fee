/**
 * A standard SQS queue as the Lambda poller sees it: batches of up to 10 records, and every
 * record named in batchItemFailures delivered again after a short visibility timeout, with the
 * same messageId and SentTimestamp and ApproximateReceiveCount raised by one.
 */
import { setTimeout as sleep, setImmediate as yieldToIo } from 'node:timers/promises';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { handler } from '../../../functions/sqs/handler.js';
import { lambdaContext } from '../../fixtures/http/events.js';
import { redelivered, sqsEvent, sqsRecord } from '../../fixtures/sqs/records.js';
import type { Ledger, LogicalRequest } from './ledger.js';
import type { LogTap } from './log-tap.js';
import type { Schedule } from './schedule.js';

export interface RedeliveryPolicy {
  /** Receives before a message counts as given up (a redrive policy's maxReceiveCount). Default 600. */
  readonly maxReceives?: number;
  /** The visibility timeout before a failed record comes back, in ms (scaled down). Default 100. */
  readonly delayMs?: number;
}

interface Message {
  readonly request: LogicalRequest;
  readonly first: SQSRecord;
  record: SQSRecord;
  visibleAt: number;
}

const BATCH_SIZE = 10;
const IDLE_MS = 5;

export class SqsSource {
  readonly #fresh: LogicalRequest[];
  readonly #waiting: Message[] = [];
  readonly #maxReceives: number;
  readonly #delayMs: number;
  #next = 0;
  #inFlight = 0;

  constructor(
    requests: readonly LogicalRequest[],
    private readonly ledger: Ledger,
    private readonly schedule: Schedule,
    private readonly tap: LogTap,
    policy: RedeliveryPolicy = {},
  ) {
    this.#fresh = [...requests];
    this.#maxReceives = policy.maxReceives ?? 600;
    this.#delayMs = policy.delayMs ?? 100;
  }

  /** One Lambda poller: receive, invoke the SQS function, settle; until every message is done. */
  async poll(): Promise<void> {
    for (;;) {
      const batch = await this.#receive();
      if (batch === undefined) return;
      this.#inFlight += 1;
      try {
        const sent = performance.now();
        const response = (await handler(
          sqsEvent(batch.map((message) => message.record)),
          lambdaContext(),
        )) as SQSBatchResponse;
        const waited = performance.now() - sent;
        for (const { request } of batch) request.slowestMs = Math.max(request.slowestMs, waited);
        this.#settle(batch, response);
      } finally {
        this.#inFlight -= 1;
      }
      // A batch that fails at once (server down) resolves without I/O; without this the pollers
      // would spin on microtasks and starve the very socket events that reconnect the client.
      await yieldToIo();
    }
  }

  async #receive(): Promise<Message[] | undefined> {
    for (;;) {
      // The fault failed, and the scenario with it: no more deliveries.
      if (this.schedule.abandoned) return undefined;
      const now = Date.now();
      const batch: Message[] = [];
      for (let i = 0; i < this.#waiting.length && batch.length < BATCH_SIZE; ) {
        const message = this.#waiting[i] as Message;
        if (message.visibleAt <= now) {
          batch.push(message);
          this.#waiting.splice(i, 1);
        } else {
          i += 1;
        }
      }
      while (batch.length < BATCH_SIZE && this.#next < this.#fresh.length) {
        const phase = this.schedule.phaseOf(this.#next, this.#fresh.length);
        if (!this.schedule.mayGo(phase)) break;
        const request = this.#fresh[this.#next++] as LogicalRequest;
        this.schedule.handOut();
        const first = firstDelivery(request);
        batch.push({ request, first, record: first, visibleAt: now });
      }
      if (batch.length > 0) return batch;
      if (this.#next >= this.#fresh.length && this.#waiting.length === 0 && this.#inFlight === 0) {
        return undefined;
      }
      await sleep(IDLE_MS);
    }
  }

  #settle(batch: readonly Message[], response: SQSBatchResponse): void {
    const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
    for (const message of batch) {
      const { request, record } = message;
      request.attempts += 1;
      const line = this.tap.lineOf(record.messageId);
      if (!failed.has(record.messageId)) {
        request.settlement = 'accepted';
        request.toldId = line?.id;
        continue;
      }
      this.ledger.note('sqs', `${line?.outcome ?? 'unlogged'} ${line?.code ?? ''}`.trim());
      if (line?.outcome === 'undelivered') {
        // A permanent failure with no DLQ configured: SQS would cycle it to its redrive DLQ.
        request.settlement = 'refused';
        continue;
      }
      request.retryable += 1;
      if (request.attempts >= this.#maxReceives) {
        request.settlement = 'gave-up';
        continue;
      }
      const receives = Number(record.attributes.ApproximateReceiveCount) + 1;
      message.record = redelivered(message.first, receives);
      message.visibleAt = Date.now() + this.#delayMs;
      this.#waiting.push(message);
    }
  }
}

/** The first delivery: text bodies as they are, binary ones base64 with `emq-encoding`. */
function firstDelivery(request: LogicalRequest): SQSRecord {
  const text = request.n % 2 === 0;
  return sqsRecord({
    queue: request.queue,
    body: text ? request.payload.toString('utf8') : request.payload.toString('base64'),
    ...(text ? {} : { encoding: 'base64' }),
  });
}
