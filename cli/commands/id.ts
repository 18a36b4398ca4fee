/**
 * `emq id [--count N]`: mints job ids here, without a server. For producers that must know a
 * job's id before they send it (`PUT /queues/{q}/jobs/{id}`, the `emq-job-id` attribute):
 * a freshly minted id passes the caller-id time check, and its place in pending order is
 * its mint time.
 */
import { Command, InvalidArgumentError } from 'commander';
import { createIdMinter, jobIdTime } from '../../src/keyspace/ids.js';
import { EXIT_OK, EXIT_USAGE } from '../failures.js';
import type { CommandResult, OutputFlags } from '../output.js';
import type { Session } from '../session.js';
import { RULES } from '../settings.js';

interface IdFlags extends OutputFlags {
  /** How many ids to mint. Default 1. */
  readonly count: number;
}

export const MAX_COUNT = 10_000;

export function idCommand(session: Session): Command {
  return new Command('id')
    .description('mint job ids (JOB + 11 base62 digits), strictly increasing; no server needed')
    .option(`--count <n>`, `mint n ids (1 to ${MAX_COUNT}; default 1)`, countOf, 1)
    .option('--json', 'print one JSON line')
    .addHelpText(
      'after',
      `\nPending order is id order, which is mint-time order: use an id soon after minting it\n(the functions refuse caller ids older than ${RULES.callerIdAge},\nor more than ${RULES.callerIdFuture} in the future). Exit codes: ${EXIT_OK} ok, ${EXIT_USAGE} usage.`,
    )
    .action((flags: IdFlags) => session.run(flags, async () => mint(flags.count)));
}

function countOf(value: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < 1 || count > MAX_COUNT) {
    throw new InvalidArgumentError(`Expected a whole number from 1 to ${MAX_COUNT}.`);
  }
  return count;
}

function mint(count: number): CommandResult {
  const minter = createIdMinter();
  const ids = Array.from({ length: count }, () => minter.mint());
  return {
    json: { ids, mintedAt: jobIdTime(ids[0] ?? '').toISOString() },
    text: ids.map((id) => `${id}\n`).join(''),
  };
}
