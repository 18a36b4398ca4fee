/** `emq enqueue <queue> [payload | -]`: admits one job, as the HTTP face's POST and PUT do. */
import { Command, Option } from 'commander';
import { enqueue } from '../../src/admission/admission.js';
import {
  assertCallerIdTime,
  assertIdempotencyKey,
  assertJobId,
  assertQueue,
} from '../../src/keyspace/keyspace.js';
import {
  type ConnectionFlags,
  configFrom,
  withConnection,
  withConnectionFlags,
} from '../connection.js';
import { checkArgument, exitCodesText } from '../failures.js';
import type { CommandResult, OutputFlags } from '../output.js';
import { readPayload } from '../payload.js';
import type { Session } from '../session.js';
import { RULES } from '../settings.js';

/** What a refused --id should do. */
const ID_ADVICE =
  'Leave --id out to have one minted, or mint one with `emq id`. To key the job by your own identifier, pass it with --idempotency-key instead.';

interface EnqueueFlags extends ConnectionFlags, OutputFlags {
  /** The caller's own job id. Default: a minted id. */
  readonly id?: string | undefined;
  /** Maps retries of this command to one job. Default: none. */
  readonly idempotencyKey?: string | undefined;
}

export function enqueueCommand(session: Session): Command {
  return withConnectionFlags(
    new Command('enqueue')
      .description('enqueue one job; the payload is stored byte for byte')
      .argument('<queue>', `queue name: ${RULES.queue}`)
      .argument('[payload]', 'the payload text, or - to read bytes from stdin (default: stdin)')
      .addOption(
        new Option('--id <id>', `your own job id (${RULES.jobId})`).conflicts('idempotencyKey'),
      )
      .option(
        '--idempotency-key <key>',
        `a retry with the same key returns the same job (${RULES.idempotencyKey})`,
      ),
  )
    .addHelpText(
      'after',
      `\nPrints "<status> <queue> <id>"; status is enqueued, or duplicate on a replay.\n${exitCodesText('enqueued or duplicate')}`,
    )
    .action((queue: string, payload: string | undefined, flags: EnqueueFlags) =>
      session.run(flags, () => enqueueJob(session, queue, payload, flags)),
    );
}

async function enqueueJob(
  session: Session,
  queue: string,
  payloadArgument: string | undefined,
  flags: EnqueueFlags,
): Promise<CommandResult> {
  // Checked before stdin is read or a connection opens: a typo costs nothing.
  checkArgument('<queue>', () => assertQueue(queue));
  const { id, idempotencyKey } = flags;
  if (id !== undefined) {
    const { callerIdMaxAgeMs } = configFrom(session.io.env, flags);
    checkArgument('--id', () => {
      assertJobId(id, ID_ADVICE);
      assertCallerIdTime(id, callerIdMaxAgeMs, Date.now(), ID_ADVICE);
    });
  }
  if (idempotencyKey !== undefined) {
    checkArgument('--idempotency-key', () => assertIdempotencyKey(idempotencyKey));
  }
  const payload = await readPayload(session.io, payloadArgument);
  const admitted = await withConnection(session.io, flags, {}, (connection) =>
    enqueue(connection, { queue, payload, id: flags.id, idempotencyKey: flags.idempotencyKey }),
  );
  return {
    json: { queue: admitted.queue, id: admitted.id, status: admitted.status },
    text: `${admitted.status} ${admitted.queue} ${admitted.id}\n`,
  };
}
