import type { Command } from 'iovalkey';
import { KeyedCommand } from './command.js';
import type { AdmitCall, EnqueueCall, Executor } from './executor.js';
import { functionAdmit } from './function.js';

export function nativeEnqueue(call: EnqueueCall): Command {
  return new KeyedCommand(
    ['EMQ.ENQUEUE', '2', call.jobKey, call.pendingKey, call.id, call.payload],
    [call.jobKey, call.pendingKey],
  );
}

export function nativeAdmit(call: AdmitCall): Command {
  return new KeyedCommand(
    [
      'EMQ.ADMIT',
      '3',
      call.jobKey,
      call.pendingKey,
      call.dedupeKey,
      call.id,
      call.payload,
      call.ttlMs,
    ],
    [call.jobKey, call.pendingKey, call.dedupeKey],
  );
}

/**
 * The native family: the module's commands, with its per-write fence and paused guard. A
 * module without EMQ.ADMIT (the seeds' own) admits through FCALL emq_admit, whose write
 * calls EMQ.ENQUEUE there, so the guards hold on that path too.
 */
export function nativeExecutor(options: { readonly admitCommand: boolean }): Executor {
  return {
    kind: 'native',
    enqueue: nativeEnqueue,
    admit: options.admitCommand ? nativeAdmit : functionAdmit,
  };
}
