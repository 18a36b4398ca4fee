import type { Command } from 'iovalkey';

/** One enqueue as SPEC §4 sends it: two keys, the id and the payload. */
export interface EnqueueCall {
  readonly jobKey: string;
  readonly pendingKey: string;
  readonly id: string;
  readonly payload: Buffer;
}

/** One admit (SPEC §4): the enqueue's keys plus the idempotency key's record and its TTL. */
export interface AdmitCall extends EnqueueCall {
  readonly dedupeKey: string;
  /** The record's lifetime in ms, as the decimal string the call sends. */
  readonly ttlMs: string;
}

/** `native`: the module's commands; `function`: FCALL of the `emq` library (ElastiCache). */
export type ExecutorKind = 'native' | 'function';

/**
 * One write, two families. Each method returns the command to send, which names its keys
 * (so the cluster client routes it by slot) and encodes itself as one RESP buffer. Replies
 * are the same on both: enqueue 1 or 0, admit [status, id], or an error reply.
 */
export interface Executor {
  readonly kind: ExecutorKind;
  enqueue(call: EnqueueCall): Command;
  admit(call: AdmitCall): Command;
}
