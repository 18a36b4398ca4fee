import type { Command } from 'iovalkey';
import { KeyedCommand } from './command.js';
import { type AdmitCall, admitParts, type Family } from './family.js';
import { SCRIPT_SHA } from './library.js';

export function scriptAdmit(call: AdmitCall): Command {
  const { keys, args } = admitParts(call);
  return new KeyedCommand(
    ['EVALSHA', SCRIPT_SHA, String(keys.length), ...keys, 'admit', ...args],
    call.pendingKey,
  );
}

/**
 * The script family (docs/wire.md, "The calls"): the library's own Lua run by EVALSHA, for targets
 * without FUNCTION (ElastiCache Serverless). The script is loaded by `emq install` and by the
 * connector; a NOSCRIPT answer means the call never ran: it is loaded and sent again.
 */
export const scriptFamily: Family = {
  name: 'script',
  admit: scriptAdmit,
};
