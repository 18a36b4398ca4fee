/**
 * The SQS options of a deployment: the queues, the event source mapping's knobs and the SQS
 * function, with their defaults and checks. deployment.ts assembles it with the rest.
 */
import type { Ensure, EnsureInt, Resolved } from '../shared/resolved.js';
import type { QueueOverrides } from './overrides.js';

export interface SqsOptions {
  /**
   * Source queue and DLQ are FIFO queues (records of one group admitted in order).
   * @default `false`
   */
  readonly fifo?: boolean;
  /**
   * Records per invocation: 1 to 10,000 on a standard queue, 1 to 10 on FIFO.
   * @default `10`
   */
  readonly batchSize?: number;
  /**
   * Seconds Lambda may wait to fill a batch, 0 to 300; required (at least 1) when batchSize is
   * above 10, refused on FIFO queues.
   * @default `0` (no window)
   */
  readonly maxBatchingWindowSeconds?: number;
  /**
   * Most concurrent invocations the queue drives, 2 to 1000.
   * @default `10`, or none when provisionedPollers is set (the two are exclusive)
   */
  readonly maxConcurrency?: number;
  /**
   * Provisioned mode: the least and most pollers of the event source mapping (min 2 to 200, max min
   * to 2000).
   * @default none (on-demand polling with maxConcurrency)
   */
  readonly provisionedPollers?: { readonly min: number; readonly max: number };
  /**
   * Function timeout in seconds.
   * @default `30`
   */
  readonly timeoutSeconds?: number;
  /**
   * Visibility timeout of the source queue; at least 6 × the function timeout.
   * @default 6 × timeoutSeconds
   */
  readonly visibilityTimeoutSeconds?: number;
  /**
   * Receives before SQS moves a message to the DLQ.
   * @default `5`
   */
  readonly maxReceiveCount?: number;
  /**
   * Function memory in MiB.
   * @default `512`
   */
  readonly memoryMiB?: number;
}

export type ResolvedSqs = Resolved<Omit<SqsOptions, 'maxConcurrency' | 'provisionedPollers'>> & {
  readonly maxConcurrency: number | undefined;
  readonly provisionedPollers: { readonly min: number; readonly max: number } | undefined;
};

/** The default SQS function timeout in seconds. */
export const DEFAULT_SQS_TIMEOUT_SECONDS = 30;
/** The default most concurrent SQS-driven invocations (on-demand polling). */
export const DEFAULT_MAX_CONCURRENCY = 10;
/**
 * Kept beyond the redelivery window by the TTL guard: the longest batching window plus a
 * function timeout's worth of slack for a redelivery that arrives at the window's very end.
 */
export const RECORD_LIFE_MARGIN_MS = 300_000;

export function resolveSqs(
  input: SqsOptions | undefined,
  ensure: Ensure,
  int: EnsureInt,
): ResolvedSqs {
  const timeoutSeconds = input?.timeoutSeconds ?? DEFAULT_SQS_TIMEOUT_SECONDS;
  const pollers = input?.provisionedPollers;
  const sqs: ResolvedSqs = {
    fifo: input?.fifo ?? false,
    batchSize: input?.batchSize ?? 10,
    maxBatchingWindowSeconds: input?.maxBatchingWindowSeconds ?? 0,
    maxConcurrency:
      input?.maxConcurrency ?? (pollers === undefined ? DEFAULT_MAX_CONCURRENCY : undefined),
    provisionedPollers: pollers,
    timeoutSeconds,
    visibilityTimeoutSeconds: input?.visibilityTimeoutSeconds ?? 6 * timeoutSeconds,
    maxReceiveCount: input?.maxReceiveCount ?? 5,
    memoryMiB: input?.memoryMiB ?? 512,
  };
  int('batchSize', sqs.batchSize, 1, sqs.fifo ? 10 : 10_000);
  int('maxBatchingWindowSeconds', sqs.maxBatchingWindowSeconds, 0, 300);
  if (sqs.fifo) {
    ensure(
      sqs.maxBatchingWindowSeconds === 0,
      'maxBatchingWindowSeconds is not allowed on a FIFO queue (Lambda offers no batching window there); remove it.',
    );
  } else {
    ensure(
      sqs.batchSize <= 10 || sqs.maxBatchingWindowSeconds >= 1,
      `batchSize ${sqs.batchSize} needs maxBatchingWindowSeconds (1 to 300): Lambda requires a batching window above 10 records.`,
    );
  }
  if (pollers !== undefined) {
    ensure(
      input?.maxConcurrency === undefined,
      'provisionedPollers and maxConcurrency are exclusive: choose one (provisioned mode scales by pollers).',
    );
    int('provisionedPollers min', pollers.min, 2, 200);
    int('provisionedPollers max', pollers.max, 2, 2_000);
    ensure(pollers.max >= pollers.min, 'provisionedPollers must be min,max with min <= max.');
  }
  if (sqs.maxConcurrency !== undefined) int('maxConcurrency', sqs.maxConcurrency, 2, 1_000);
  int('sqs timeoutSeconds', sqs.timeoutSeconds, 1, 900);
  int('visibilityTimeoutSeconds', sqs.visibilityTimeoutSeconds, 0, 43_200);
  int('maxReceiveCount', sqs.maxReceiveCount, 1, 1_000);
  int('sqs memoryMiB', sqs.memoryMiB, 128, 10_240);
  return sqs;
}

/** Seconds SQS keeps a message of the source queue the construct makes. */
export const SOURCE_RETENTION_SECONDS = 4 * 24 * 3_600;

/**
 * What bounds how long one message of a queue can come back: each receive hides it for the
 * visibility timeout, the redrive policy moves it to the DLQ after maxReceiveCount receives
 * (none: it comes back until it expires), and retention ends it in any case.
 */
export interface Redelivery {
  /** Which queue, as the message names it: `the source queue`, `queue Jobs`. */
  readonly queue: string;
  /** Which names the message gives the figures: the options' or the queue's own. */
  readonly names: { readonly visibility: string; readonly receives: string };
  /**
   * How many SQS function timeouts its visibility timeout must cover: 6 on the queue the construct
   * makes (AWS's advice, and the construct's default), 1 on the team's own (below it Lambda refuses
   * the event source).
   * @default 1
   */
  readonly timeoutsCovered?: 1 | 6;
  readonly visibilityTimeoutSeconds: number;
  /** undefined: no redrive policy. */
  readonly maxReceiveCount: number | undefined;
  readonly retentionSeconds: number;
}

/** The figures of the source queue its options make, and `queueProps` over them. */
export function sourceRedelivery(sqs: ResolvedSqs, overrides: QueueOverrides = {}): Redelivery {
  const visibility = overrides.visibilityTimeoutSeconds;
  const receives = overrides.maxReceiveCount;
  return {
    queue: 'the source queue',
    names: {
      visibility:
        visibility === undefined ? 'visibilityTimeoutSeconds' : 'queueProps.visibilityTimeout',
      receives:
        receives === undefined ? 'maxReceiveCount' : 'queueProps.deadLetterQueue.maxReceiveCount',
    },
    visibilityTimeoutSeconds: visibility ?? sqs.visibilityTimeoutSeconds,
    maxReceiveCount: receives ?? sqs.maxReceiveCount,
    retentionSeconds: overrides.retentionSeconds ?? SOURCE_RETENTION_SECONDS,
    timeoutsCovered: 6,
  };
}

/**
 * AWS's rule for an SQS-driven function: a message stays hidden while its batch runs. Lambda
 * refuses an event source whose queue hides it for less than the function's timeout, and AWS
 * advises 6 ×, to cover the retries of a batch, which the construct keeps on the queue it
 * makes. One check for every queue: the one the construct makes, queueProps over it, and the
 * team's own (`sqs.redelivery` or a Queue of the app).
 */
export function checkVisibility(
  queue: Redelivery,
  timeout: { readonly name: string; readonly seconds: number },
  ensure: Ensure,
): void {
  const visibility = queue.visibilityTimeoutSeconds;
  const times = queue.timeoutsCovered ?? 1;
  const needed = times * timeout.seconds;
  const cover = times === 1 ? '' : `${times} × `;
  ensure(
    visibility >= needed,
    `${queue.names.visibility} (${visibility} s) of ${queue.queue} must be at least ${cover}the SQS function's timeout, ${timeout.name} (${timeout.seconds} s)${times === 1 ? '' : ` = ${needed} s`}: a record would come back while its batch still runs${times === 1 ? ', and Lambda refuses the event source' : ''}. Raise ${queue.names.visibility} or lower ${timeout.name}.`,
  );
}

/**
 * docs/wire.md "Idempotency records" and docs/deploy.md "Acknowledged writes": an idempotency record must
 * outlive every redelivery of its message, or a late redelivery is admitted a second time. The
 * longest span is visibility timeout × maxReceiveCount, or the retention where that is shorter or
 * there is no redrive policy; the margin covers the batching window and a last invocation. The one
 * rule for the queues the construct makes and for the team's own.
 */
export function checkRecordLife(dedupeTtlMs: number, queue: Redelivery, ensure: Ensure): void {
  const { visibilityTimeoutSeconds: visibility, maxReceiveCount: receives } = queue;
  const byReceives =
    receives === undefined ? Number.POSITIVE_INFINITY : visibility * 1_000 * receives;
  const retentionMs = queue.retentionSeconds * 1_000;
  const span =
    byReceives <= retentionMs
      ? `${queue.names.visibility} (${visibility}) × 1000 × ${queue.names.receives} (${receives})`
      : `its retention (${queue.retentionSeconds} s) × 1000${receives === undefined ? ', with no redrive policy' : ''}`;
  const needed = Math.min(byReceives, retentionMs) + RECORD_LIFE_MARGIN_MS;
  ensure(
    dedupeTtlMs >= needed,
    `dedupeTtlMs (EMQ_DEDUPE_TTL_MS, ${dedupeTtlMs}) must be at least the span over which ${queue.queue} can deliver one message again, ${span} + ${RECORD_LIFE_MARGIN_MS} = ${needed}: a later redelivery would be a second job. Raise dedupeTtlMs, or lower ${queue.names.visibility} or ${queue.names.receives}.`,
  );
}
