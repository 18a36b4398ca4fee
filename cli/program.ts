/**
 * The `emq` program: commander parses, each command lives in its own file, and every outcome
 * ends as an exit code (0 ok, 1 refused or failed, 2 usage).
 */
import { Command } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import { enqueueCommand } from './commands/enqueue.js';
import { fenceCommand, installCommand } from './commands/fence.js';
import { getCommand } from './commands/get.js';
import { idCommand } from './commands/id.js';
import { pendingCommand } from './commands/pending.js';
import { sendCommand } from './commands/send.js';
import { sqsCommand } from './commands/sqs.js';
import { type ExitCode, exitCodeOfCommander, isCommanderError } from './failures.js';
import type { Io } from './io.js';
import { Session } from './session.js';

const ENVIRONMENT_HELP = `
Connection: --url, --cluster, or the EMQ_* variables the functions read:
  EMQ_URL        redis:// or rediss:// URL, comma-separated cluster seeds (default redis://127.0.0.1:6379)
  EMQ_CLUSTER    true for a Valkey cluster (default false)
  EMQ_WIRE       the wire identity in {emq}:version (default 1)
  EMQ_EXECUTOR   auto, native or script (default auto)
  EMQ_USERNAME, EMQ_PASSWORD, EMQ_SECRET_ARN   credentials

Exit codes: 0 ok, 1 refused or failed, 2 usage.`;

/** Runs `emq` with the arguments after the program name; resolves to the exit code. */
export async function run(args: readonly string[], io: Io): Promise<ExitCode> {
  const session = new Session(io);
  const program = new Command('emq')
    .description('Admit and inspect EchoMQ jobs on Valkey')
    .version(packageJson.version, '-V, --version')
    // Set before the commands are added: subcommands inherit both.
    .configureOutput({ writeOut: (text) => io.out(text), writeErr: (text) => io.err(text) })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', ENVIRONMENT_HELP);
  for (const command of [
    enqueueCommand(session),
    getCommand(session),
    pendingCommand(session),
    idCommand(session),
    fenceCommand(session),
    installCommand(session),
    sqsCommand(session),
    sendCommand(session),
  ]) {
    program.addCommand(inherit(command, program));
  }
  try {
    await program.parseAsync([...args], { from: 'user' });
  } catch (error) {
    if (isCommanderError(error)) return exitCodeOfCommander(error);
    throw error;
  }
  return session.exitCode;
}

/** addCommand does not copy settings (command() does): copy them, down to nested commands. */
function inherit(command: Command, parent: Command): Command {
  command.copyInheritedSettings(parent);
  for (const child of command.commands) inherit(child, command);
  return command;
}
