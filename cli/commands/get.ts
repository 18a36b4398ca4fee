/** `emq get <queue> <id>`: reads a job row back, as the HTTP face's GET does. */
import { Command } from 'commander';
import { readJob } from '../../src/jobs.js';
import { assertJobId, assertQueue } from '../../src/keyspace/keyspace.js';
import {
  type ConnectionFlags,
  READ_ONLY,
  withConnection,
  withConnectionFlags,
} from '../connection.js';
import { CliFailure, checkArgument, exitCodesText } from '../failures.js';
import { type CommandResult, type OutputFlags, table } from '../output.js';
import { showPayload } from '../payload.js';
import type { Session } from '../session.js';
import { RULES } from '../settings.js';

interface GetFlags extends ConnectionFlags, OutputFlags {
  /** Print only the payload's bytes, exactly as stored. Default false. */
  readonly raw?: boolean | undefined;
}

export function getCommand(session: Session): Command {
  return withConnectionFlags(
    new Command('get')
      .description("read a job's row: state, attempts and payload")
      .argument('<queue>', `queue name: ${RULES.queue}`)
      .argument('<id>', `job id: ${RULES.jobId}`),
  )
    .option('--raw', "print only the payload's bytes, exactly as stored")
    .addHelpText(
      'after',
      `\nA payload that is not UTF-8 text is shown as base64 (encoding: base64).\n${exitCodesText('found', 'not found (EMQ_JOB_NOT_FOUND) or failed')}`,
    )
    .action((queue: string, id: string, flags: GetFlags) =>
      session.run(flags, () => getJob(session, queue, id, flags)),
    );
}

async function getJob(
  session: Session,
  queue: string,
  id: string,
  flags: GetFlags,
): Promise<CommandResult> {
  checkArgument('<queue>', () => assertQueue(queue));
  checkArgument('<id>', () =>
    assertJobId(id, 'Use the id `emq enqueue` printed, or one `emq pending <queue>` lists.'),
  );
  const row = await withConnection(session.io, flags, READ_ONLY, (connection) =>
    readJob(connection, queue, id),
  );
  if (row === null)
    throw new CliFailure(
      'EMQ_JOB_NOT_FOUND',
      `Queue ${queue} has no job ${id} (never enqueued, or already consumed).`,
    );
  const shown = showPayload(row.payload);
  return {
    json: { queue, id, state: row.state, attempts: row.attempts, ...shown },
    text: flags.raw
      ? row.payload
      : table([
          ['queue', queue],
          ['id', id],
          ['state', row.state],
          ['attempts', String(row.attempts)],
          [shown.encoding === 'utf8' ? 'payload' : 'payload (base64)', shown.payload],
        ]),
  };
}
