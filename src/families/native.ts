import type { Command } from 'iovalkey';
import { KeyedCommand } from './command.js';
import { type AdmitCall, admitParts, type Family } from './family.js';
import { functionAdmit } from './function.js';

export function nativeAdmit(call: AdmitCall): Command {
  const { keys, args } = admitParts(call);
  return new KeyedCommand(['EMQ.ADMIT', String(keys.length), ...keys, ...args], call.pendingKey);
}

/**
 * The native family: the module's commands, with its per-write fence and paused guard. A
 * module without this version's EMQ.ADMIT (the seeds' own, or an older build) admits through
 * FCALL emq_admit, whose writes call EMQ.ENQUEUE there, so the guards hold on that path too.
 */
export function nativeFamily(options: { readonly admitCommand: boolean }): Family {
  return {
    name: 'native',
    admit: options.admitCommand ? nativeAdmit : functionAdmit,
  };
}
