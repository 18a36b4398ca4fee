/**
 * Which of the calls the families need a node knows: what `EMQ_EXECUTOR=auto` decides by, read
 * under each deployed user's own rights (node-reading.ts sends it with a primary's first reading).
 */
import type { Valkey } from 'iovalkey';
import { SCRIPT_SHA } from '../families/library.js';

interface Known {
  readonly module: boolean;
  readonly admit: boolean;
  readonly wire: boolean;
  readonly functions: boolean;
}

/**
 * Which of the calls the families need a node knows (COMMAND INFO), for `auto`. Only the
 * native family's users hold COMMAND INFO (src/families/access-rules.ts): a user refused it was
 * given the function or the script family, and which one is told by SCRIPT EXISTS, a command every
 * target has and only the script family's users hold. So `auto` works under each deployed
 * user's rights and sends no target a command it lacks.
 */
export async function commandsOf(node: Valkey): Promise<Known> {
  let infos: unknown[];
  try {
    infos = (await node.call(
      'COMMAND',
      'INFO',
      'EMQ.ENQUEUE',
      'EMQ.ADMIT',
      'EMQ.WIRE',
      'FCALL_RO',
    )) as unknown[];
  } catch (error) {
    if (!isNoPerm(error)) throw error;
    return { module: false, admit: false, wire: false, functions: !(await holdsScripts(node)) };
  }
  return {
    module: infos[0] != null,
    admit: infos[0] != null && movableKeys(infos[1]),
    wire: infos[2] != null,
    functions: infos[3] != null,
  };
}

/** Whether the connection's user may run the script family's SCRIPT EXISTS. */
async function holdsScripts(node: Valkey): Promise<boolean> {
  try {
    await node.call('SCRIPT', 'EXISTS', SCRIPT_SHA);
    return true;
  } catch (error) {
    if (isNoPerm(error)) return false;
    throw error;
  }
}

function isNoPerm(error: unknown): boolean {
  return error instanceof Error && /^NOPERM\b/.test(error.message);
}

/** This version's EMQ.ADMIT takes any number of admissions, so its keys are found per call. */
export function movableKeys(info: unknown): boolean {
  return Array.isArray(info) && Array.isArray(info[2]) && info[2].includes('movablekeys');
}
