/** `emq pending <queue> [--limit N]`: the first pending job ids of a queue. */
import { Command, InvalidArgumentError } from 'commander';
import { listPending } from '../../src/jobs.js';
import { assertQueue } from '../../src/keyspace/keyspace.js';
import {
  type ConnectionFlags,
  READ_ONLY,
  withConnection,
  withConnectionFlags,
} from '../connection.js';
import { checkArgument, exitCodesText } from '../failures.js';
import type { CommandResult, OutputFlags } from '../output.js';
import type { Session } from '../session.js';
import { RULES } from '../settings.js';

interface PendingFlags extends ConnectionFlags, OutputFlags {
  /** How many ids to show. Default 100. */
  readonly limit: number;
}

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 100_000;

export function pendingCommand(session: Session): Command {
  return withConnectionFlags(
    new Command('pending')
      .description('list the pending job ids of a queue, in id order')
      .argument('<queue>', `queue name: ${RULES.queue}`),
  )
    .option(
      `--limit <n>`,
      `show at most n ids (1 to ${MAX_LIMIT}; default ${DEFAULT_LIMIT})`,
      limitOf,
      DEFAULT_LIMIT,
    )
    .addHelpText(
      'after',
      `\nPrints one id per line, in id order (the order workers take them): minted ids sort by\nmint time, so a caller-chosen id sorts by the time it encodes, not by when it was sent.\nWhen more are pending, says so on stderr. ${exitCodesText('ok', 'failed')}`,
    )
    .action((queue: string, flags: PendingFlags) =>
      session.run(flags, () => pending(session, queue, flags)),
    );
}

function limitOf(value: string): number {
  const limit = Number(value);
  if (!/^\d+$/.test(value) || limit < 1 || limit > MAX_LIMIT) {
    throw new InvalidArgumentError(`Expected a whole number from 1 to ${MAX_LIMIT}.`);
  }
  return limit;
}

async function pending(
  session: Session,
  queue: string,
  flags: PendingFlags,
): Promise<CommandResult> {
  checkArgument('<queue>', () => assertQueue(queue));
  const page = await withConnection(session.io, flags, READ_ONLY, (connection) =>
    listPending(connection, queue, flags.limit),
  );
  const more = page.total - page.ids.length;
  return {
    json: { queue, ids: page.ids, total: page.total },
    text: page.ids.map((id) => `${id}\n`).join(''),
    note:
      more > 0
        ? `${more} more pending in ${queue} (${page.total} in all); raise --limit to see them.`
        : undefined,
  };
}
