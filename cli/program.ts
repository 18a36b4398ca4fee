/**
 * The `emq` program: commander parses, each command lives in its own file, and every outcome
 * ends as an exit code (cli/failures.ts says which).
 */
import { Command } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import { dlqCommand } from './commands/dlq.js';
import { doctorCommand } from './commands/doctor.js';
import { enqueueCommand } from './commands/enqueue.js';
import { fenceCommand, installCommand } from './commands/fence.js';
import { getCommand } from './commands/get.js';
import { idCommand } from './commands/id.js';
import { pendingCommand } from './commands/pending.js';
import { purgeCommand } from './commands/purge.js';
import { sendCommand } from './commands/send.js';
import { sqsCommand } from './commands/sqs.js';
import {
  EXIT_FAILED,
  EXIT_USAGE,
  type ExitCode,
  exitCodesText,
  isCommanderError,
} from './failures.js';
import type { Io } from './io.js';
import { Session } from './session.js';
import { settingsHelp } from './settings.js';

/** Runs `emq` with the arguments after the program name; resolves to the exit code. */
export async function run(args: readonly string[], io: Io): Promise<ExitCode> {
  const session = new Session(io);
  const json = wantsJson(args);
  const program = new Command('emq')
    .description('Admit and inspect EchoMQ jobs on Valkey')
    .version(packageJson.version, '-V, --version')
    // Set before the commands are added: subcommands inherit them. With --json, commander's
    // own error text stays unprinted: the error is printed once, as JSON, by the session.
    .configureOutput({
      writeOut: (text) => io.out(text),
      writeErr: (text) => (json ? undefined : io.err(text)),
    })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `${settingsHelp()}\n\n${exitCodesText()}\nA refusal found at connect (memory policy, module, credentials) is ${EXIT_FAILED}; ${EXIT_USAGE} means\nthe arguments or settings are wrong and nothing was attempted.`,
    );
  for (const command of [
    enqueueCommand(session),
    getCommand(session),
    pendingCommand(session),
    idCommand(session),
    fenceCommand(session),
    installCommand(session),
    doctorCommand(session),
    purgeCommand(session),
    sqsCommand(session),
    sendCommand(session),
    dlqCommand(session),
  ]) {
    program.addCommand(inherit(command, program));
  }
  try {
    await program.parseAsync([...args], { from: 'user' });
  } catch (error) {
    if (isCommanderError(error)) return session.refused(error, { json });
    throw error;
  }
  return session.exitCode;
}

/**
 * Whether the command line asks for JSON. Read before commander parses, because a usage
 * error (an unknown option, a missing argument) stops the parse before any flag is known.
 * Arguments after `--` are operands, never the flag.
 */
export function wantsJson(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes('--json');
}

/** addCommand does not copy settings (command() does): copy them, down to nested commands. */
function inherit(command: Command, parent: Command): Command {
  command.copyInheritedSettings(parent);
  for (const child of command.commands) inherit(child, command);
  return command;
}
