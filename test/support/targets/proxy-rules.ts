/**
 * TEST HARNESS ONLY: what a target proxy (proxy.ts) does with one command, and the texts it
 * answers with. Renaming (`--rename-command X ""`) makes a whole command unknown at the server
 * itself; what renaming cannot reach is decided here: subcommands, the commands a server needs
 * for its own replication (PSYNC, SYNC), and the Serverless limits (argument cap, key-less
 * scripts, SCRIPT FLUSH as a no-op). The harness's own user is never refused.
 */
import { KEYLESS_SCRIPT_ERROR } from './aws-commands.js';

export interface ProxyRules {
  /** `command` or `command|subcommand` entries the proxy answers as unknown. */
  readonly refuse: ReadonlySet<string>;
  /** Most arguments (the command name included) one command may carry. */
  readonly maxArguments: number | undefined;
  /** EVAL / EVALSHA (and their _RO forms) with no keys are refused with AWS's text. */
  readonly refuseKeylessScripts: boolean;
  /** SCRIPT FLUSH is answered OK and flushes nothing (Serverless: "Currently a no-op"). */
  readonly scriptFlushIsNoop: boolean;
  /** Never refused: the harness (replication, readiness checks). */
  readonly exemptUser: string;
}

export type Decision =
  | { readonly kind: 'forward' }
  /** Not forwarded; `reply` is the whole RESP reply, `reason` what the log records. */
  | { readonly kind: 'answer'; readonly reply: Buffer; readonly reason: string };

const SCRIPTS = new Set(['eval', 'evalsha', 'eval_ro', 'evalsha_ro']);

export interface Command {
  readonly args: readonly Buffer[];
  /** Lowercase. */
  readonly name: string;
  /** Lowercase, for a container command. */
  readonly subcommand: string | undefined;
}

export function decide(
  command: Command,
  state: { readonly user: string; readonly inMulti: boolean },
  rules: ProxyRules,
): Decision {
  if (state.user === rules.exemptUser) return { kind: 'forward' };
  const { args, name, subcommand } = command;
  if (rules.maxArguments !== undefined && args.length > rules.maxArguments) {
    return answer(
      `ERR the command has ${args.length} arguments; at most ${rules.maxArguments} are accepted`,
      'arguments',
    );
  }
  if (rules.refuse.has(name)) return answer(unknownCommand(args), 'unavailable');
  if (subcommand !== undefined && rules.refuse.has(`${name}|${subcommand}`)) {
    return answer(unknownSubcommand(name, args[1] as Buffer), 'unavailable');
  }
  if (rules.refuseKeylessScripts && SCRIPTS.has(name) && args[2]?.toString('latin1') === '0') {
    return answer(KEYLESS_SCRIPT_ERROR, 'keyless-script');
  }
  if (rules.scriptFlushIsNoop && name === 'script' && subcommand === 'flush') {
    // Inside MULTI the server would queue it; the harness does not emulate that.
    return state.inMulti
      ? answer('ERR the harness does not emulate SCRIPT FLUSH inside MULTI', 'script-flush')
      : { kind: 'answer', reply: Buffer.from('+OK\r\n'), reason: 'script-flush-noop' };
  }
  return { kind: 'forward' };
}

function answer(text: string, reason: string): Decision {
  return { kind: 'answer', reply: Buffer.from(`-${sanitize(text)}\r\n`), reason };
}

/** Valkey's own text for an unknown command (server.c), so a client sees what it would. */
export function unknownCommand(args: readonly Buffer[]): string {
  let listed = '';
  for (const arg of args.slice(1)) {
    if (listed.length >= 128) break;
    listed += `'${arg.toString('utf8').slice(0, 128 - listed.length)}' `;
  }
  const name = (args[0] ?? Buffer.alloc(0)).toString('utf8').slice(0, 128);
  return `ERR unknown command '${name}', with args beginning with: ${listed}`;
}

/** Valkey's own text for an unknown subcommand of a container command. */
export function unknownSubcommand(container: string, subcommand: Buffer): string {
  return `ERR unknown subcommand '${subcommand.toString('utf8').slice(0, 128)}'. Try ${container.toUpperCase()} HELP.`;
}

/** An error reply is one line: Valkey turns line breaks in error texts into spaces. */
function sanitize(text: string): string {
  return text.replace(/[\r\n]/g, ' ');
}
