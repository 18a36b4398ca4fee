/**
 * `emq purge <queue>`: deletes the queue's dead idempotency records now (admission purges a
 * bounded number on every call; this sweeps the whole queue, one bounded step at a time).
 * Live records stay, so nothing a retry relies on is lost.
 */
import { Command } from 'commander';
import { purgeRecords } from '../../src/jobs.js';
import { assertQueue } from '../../src/keyspace/keyspace.js';
import {
  type ConnectionFlags,
  READ_ONLY,
  withConnection,
  withConnectionFlags,
} from '../connection.js';
import { exitCodesText } from '../failures.js';
import type { CommandResult, OutputFlags } from '../output.js';
import type { Session } from '../session.js';

type PurgeFlags = ConnectionFlags & OutputFlags;

export function purgeCommand(session: Session): Command {
  return withConnectionFlags(
    new Command('purge')
      .description("delete a queue's dead idempotency records; live ones stay")
      .argument('<queue>', 'queue name'),
  )
    .addHelpText(
      'after',
      `\nRuns the emq library's emq_purge (FCALL, or EVALSHA in the script family): the user\nneeds it and HSCAN, HDEL, HLEN and UNLINK on emq:{q}:dedupe:0..3 (an operator's user;\nno deployed user has them).\n${exitCodesText('purged')}`,
    )
    .action((queue: string, flags: PurgeFlags) =>
      session.run(flags, async () => {
        assertQueue(queue);
        // The fence guards writes of jobs; a purge deletes only dead records.
        const report = await withConnection(session.io, flags, READ_ONLY, (connection) =>
          purgeRecords(connection, queue),
        );
        return purged(queue, report);
      }),
    );
}

function purged(queue: string, report: { deleted: number; unlinked: number }): CommandResult {
  return {
    json: { queue, ...report },
    text: `purged ${queue}: ${report.deleted} dead records deleted (${report.unlinked} record slots unlinked whole)\n`,
  };
}
