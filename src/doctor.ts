/**
 * What `emq doctor` checks: everything a function checks when it connects (credentials, cluster
 * mode, identity, library, memory policy, on every primary), and then that the target runs the
 * calls the chosen family sends: an admit call that the server refuses for its layout on every
 * primary (it runs the call's code and writes nothing), and WAIT where acknowledgements ask it.
 */
import type { Cluster, Valkey } from 'iovalkey';
import { type Connection, type ConnectOptions, connect } from './connection/connector.js';
import { type FenceReading, readNodes } from './connection/node-reading.js';
import { nodeClientOf } from './connection/transport.js';
import { MINTED_ID } from './families/family.js';
import {
  checkedQueue,
  type QueueName,
  slotOf,
  trustedPendingKey,
  trustedRecordSlotKeys,
} from './keyspace/keyspace.js';
import { classifyFailure } from './outcomes/outcome-rules.js';
import type { EmqError } from './outcomes/outcomes.js';

/** What one of the doctor's checks found (`emq doctor` prints one line, or JSON item, each). */
export interface Finding {
  /** What was checked, for a person: `connect`, `admit on node <id>`, `WAIT`. */
  readonly name: string;
  readonly ok: boolean;
  /** What was found; for a failure, what to do. */
  readonly detail: string;
}

export interface TargetReport {
  readonly ok: boolean;
  /** The family the connection chose, when it opened. */
  readonly family: string | undefined;
  readonly nodes: readonly FenceReading[];
  readonly findings: readonly Finding[];
  /** The connect failure, when the connection did not open. */
  readonly failure: EmqError | undefined;
}

/** Runs every check against the target `options` describe; never throws for a check's failure. */
export async function checkTarget(options: ConnectOptions): Promise<TargetReport> {
  let connection: Connection;
  try {
    connection = await connect({ ...options, checkFence: true });
  } catch (error) {
    const failure = classifyFailure(error);
    const nodes = await readAnyway(options);
    return {
      ok: false,
      family: undefined,
      nodes,
      findings: [{ name: 'connect', ok: false, detail: `${failure.code}: ${failure.message}` }],
      failure,
    };
  }
  try {
    const findings: Finding[] = [
      { name: 'connect', ok: true, detail: `the ${connection.family.name} family serves` },
    ];
    for (const node of connection.primaries()) findings.push(await dryAdmit(connection, node));
    if (connection.config.ackReplicas > 0) findings.push(await waitCheck(connection));
    return {
      ok: findings.every((finding) => finding.ok),
      family: connection.family.name,
      nodes: await readNodes(connection),
      findings,
      failure: undefined,
    };
  } finally {
    await connection.close();
  }
}

/** The nodes as they are, where a connection opens without the checks (for the report). */
async function readAnyway(options: ConnectOptions): Promise<FenceReading[]> {
  try {
    const connection = await connect({ ...options, checkFence: false });
    try {
      return await readNodes(connection);
    } finally {
      await connection.close();
    }
  } catch {
    return [];
  }
}

/**
 * An admit call on `node` whose record slots are out of order: every family answers EMQLAYOUT
 * before anything else, so the answer proves the call reaches its code there, with this user's
 * permissions, and writes nothing.
 */
async function dryAdmit(connection: Connection, node: Valkey): Promise<Finding> {
  const queue = queueServedBy(connection.client, node);
  const name = connection.client.isCluster
    ? `admit on ${node.options.host}:${node.options.port}`
    : 'admit';
  if (queue === undefined) return { name, ok: false, detail: 'the node serves no slot' };
  const command = connection.family.admit({
    pendingKey: trustedPendingKey(queue),
    recordSlotKeys: [...trustedRecordSlotKeys(queue)].reverse(),
    wire: connection.config.wire,
    ttlMs: String(connection.config.dedupeTtlMs),
    admissions: [
      {
        rowKey: `emq:{${queue}}:job:JOB00000000000`,
        idSource: MINTED_ID,
        digest: 'A'.repeat(16),
        field: 'A'.repeat(22),
        payload: Buffer.alloc(0),
      },
    ],
  });
  node.sendCommand(command);
  const reply: unknown = await command.promise.catch((error: unknown) => error);
  if (reply instanceof Error && /^EMQLAYOUT\b/.test(reply.message)) {
    return {
      name,
      ok: true,
      detail: `${connection.family.name} admit runs (refused a bad layout, wrote nothing)`,
    };
  }
  const failure = classifyFailure(reply instanceof Error ? reply : new Error('unexpected reply'));
  return { name, ok: false, detail: `${failure.code}: ${failure.message}` };
}

async function waitCheck(connection: Connection): Promise<Finding> {
  const reply = await connection
    .primaries()[0]
    ?.call('WAIT', '0', '0')
    .catch((error: unknown) => error);
  if (!(reply instanceof Error))
    return { name: 'WAIT', ok: true, detail: 'acknowledgements can be asked' };
  const failure = classifyFailure(reply);
  return {
    name: 'WAIT',
    ok: false,
    detail: `${failure.code}: ${failure.message} (EMQ_ACK_REPLICAS is ${connection.config.ackReplicas}; the target has no WAIT: set it to 0)`,
  };
}

/** A queue name whose slot `node` serves (the client itself when standalone). */
function queueServedBy(client: Valkey | Cluster, node: Valkey): QueueName | undefined {
  for (let n = 0; n < 100_000; n++) {
    const queue = checkedQueue(`emq-doctor-${n}`);
    if (nodeClientOf(client, slotOf(trustedPendingKey(queue))) === node) return queue;
    if (!client.isCluster) return queue;
  }
  return undefined;
}
