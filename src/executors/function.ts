import type { Command } from 'iovalkey';
import { KeyedCommand } from './command.js';
import type { AdmitCall, EnqueueCall, Executor } from './executor.js';

export function functionEnqueue(call: EnqueueCall): Command {
  return new KeyedCommand(
    ['FCALL', 'emq_enqueue', '2', call.jobKey, call.pendingKey, call.id, call.payload],
    [call.jobKey, call.pendingKey],
  );
}

export function functionAdmit(call: AdmitCall): Command {
  return new KeyedCommand(
    [
      'FCALL',
      'emq_admit',
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

/** The function family: FCALL of the `emq` library that `emq install` loaded (SPEC §4). */
export const functionExecutor: Executor = {
  kind: 'function',
  enqueue: functionEnqueue,
  admit: functionAdmit,
};
