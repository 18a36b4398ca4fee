/**
 * The assertion a suite ends a scenario with: every command (with subcommand) the product sent
 * through the target's proxies is one the target supports, and none was refused (a key-less
 * script, too many arguments, a subcommand the service lacks). The harness's own traffic is
 * left out. A failure names each offending command, who sent it and how often.
 */
import { HARNESS_USER } from './acl-file.js';
import { type CommandRecord, fullName } from './command-log.js';
import type { Target } from './target.js';

export interface CommandCheck {
  /** Check only these users' commands. Default: every user but the harness's. */
  readonly users?: readonly string[];
}

/** The records that break the target's rules (empty when all is well). */
export function unsupportedCommands(target: Target, check: CommandCheck = {}): CommandRecord[] {
  return target.commands
    .entries()
    .filter((record) =>
      check.users === undefined ? record.user !== HARNESS_USER : check.users.includes(record.user),
    )
    .filter(
      (record) =>
        record.refused !== undefined || !target.supports(record.command, record.subcommand),
    );
}

export function assertCommandsSupported(target: Target, check: CommandCheck = {}): void {
  const offending = unsupportedCommands(target, check);
  if (offending.length === 0) return;
  const lines = offending.map(
    (record) =>
      `  ${fullName(record).toUpperCase()} as ${record.user}, ${record.count}x${record.refused === undefined ? '' : ` (refused: ${record.refused})`}`,
  );
  throw new Error(`the product sent ${target.name} what it does not support:\n${lines.join('\n')}`);
}
