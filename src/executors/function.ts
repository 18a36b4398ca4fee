import type { Command } from 'iovalkey';
import { KeyedCommand } from './command.js';
import { type AdmitCall, admitParts, type EnqueueCall, type Executor } from './executor.js';

export function functionEnqueue(call: EnqueueCall): Command {
  return new KeyedCommand(
    ['FCALL', 'emq_enqueue', '2', call.jobKey, call.pendingKey, call.id, call.payload],
    call.jobKey,
  );
}

export function functionAdmit(call: AdmitCall): Command {
  const { keys, args } = admitParts(call);
  return new KeyedCommand(
    ['FCALL', 'emq_admit', String(keys.length), ...keys, ...args],
    call.pendingKey,
  );
}

/** The function family: FCALL of the `emq` library that `emq install` loaded (SPEC §4). */
export const functionExecutor: Executor = {
  kind: 'function',
  enqueue: functionEnqueue,
  admit: functionAdmit,
};
