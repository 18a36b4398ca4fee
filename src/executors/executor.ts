import type { Pipeline } from 'iovalkey';

/** One enqueue as SPEC §4 sends it: two keys, the id and the payload. */
export interface EnqueueCall {
  readonly jobKey: string;
  readonly pendingKey: string;
  readonly id: string;
  readonly payload: Buffer;
}

export type ExecutorKind = 'native' | 'script';

/**
 * One write, two ways. An executor adds an enqueue to a pipeline; its reply is integer 1
 * (enqueued), 0 (duplicate) or an error reply, the same on both.
 */
export interface Executor {
  readonly kind: ExecutorKind;
  enqueue(pipeline: Pipeline, call: EnqueueCall): void;
}
