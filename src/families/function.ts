import type { Command } from 'iovalkey';
import { KeyedCommand } from './command.js';
import { type AdmitCall, admitParts, type Family } from './family.js';

export function functionAdmit(call: AdmitCall): Command {
  const { keys, args } = admitParts(call);
  return new KeyedCommand(
    ['FCALL', 'emq_admit', String(keys.length), ...keys, ...args],
    call.pendingKey,
  );
}

/**
 * The function family: FCALL of the `emq` library that `emq install` loaded (docs/wire.md,
 * "The calls").
 */
export const functionFamily: Family = {
  name: 'function',
  admit: functionAdmit,
};
