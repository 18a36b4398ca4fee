/**
 * A round's admissions as admit calls (docs/wire.md "admit"): grouped one call per queue,
 * their arguments, and how a call's reply settles them: each one's result, or a fresh proposal
 * when its minted id was taken (status 2), confirmed by the node's WAIT when acknowledgements
 * are required; and one round's sending: the calls grouped by node, one write per node. The
 * attempts (and sending again after a reconnect) are admission.ts's.
 */
import { Command, ReplyError } from 'iovalkey';
import type { Connection } from '../connection/connector.js';
import { nodeNameOf, type Reply, sendToNode } from '../connection/transport.js';
import {
  type AdmissionArgs,
  CALLER_ID,
  type IdSource,
  MAX_ADMISSIONS_PER_CALL,
  MINTED_ID,
} from '../families/family.js';
import {
  type JobId,
  type QueueName,
  trustedJobKey,
  trustedQueueKeys,
} from '../keyspace/keyspace.js';
import { classifyFailure } from '../outcomes/outcome-rules.js';
import {
  ConflictError,
  type EmqError,
  UnavailableError,
  UnconfirmedError,
  type WriteStatus,
  type Written,
} from '../outcomes/outcomes.js';

/** A job admitted: its queue, its id, and whether this call wrote it or found it. */
export interface Admitted {
  readonly queue: string;
  readonly id: string;
  readonly status: WriteStatus;
}

/** One request's outcome: admitted, or the error that says why not. */
export type AdmissionResult = Admitted | EmqError;

/** A NOSCRIPT answer means the call never ran: load the script and send the call this often. */
const MAX_LOADS = 2;

/** Bounded: each proposal is a fresh id, so a long run of taken ids means something is wrong. */
const MAX_PROPOSALS = 4;
/** A valid request on its way. */
export interface Item {
  readonly index: number;
  readonly queue: QueueName;
  readonly payload: Buffer;
  readonly idSource: IdSource;
  /** The caller's id, else the current proposal (empty until propose gives the first). */
  id: JobId;
  readonly digest: string;
  /** The key's record field (docs/wire.md "Idempotency records"). */
  readonly field: string;
  proposals: number;
  loads: number;
}

/** One admit call of one queue as a round sends it: its items, its cluster slot and its command. */
export interface QueueCall {
  readonly items: readonly Item[];
  readonly slot: number;
  readonly command: Command;
}

/** Gives a minted admission its next proposal. */
export function propose(connection: Connection, item: Item): void {
  // Minted here: as trusted as a checked id.
  item.id = connection.mintId() as JobId;
  item.proposals += 1;
}

/** Settles every item of one call from its reply and its node's WAIT. */
function settleCall(
  connection: Connection,
  call: QueueCall,
  reply: Reply,
  confirmation: Reply,
  results: AdmissionResult[],
  again: Item[],
): void {
  if (!Array.isArray(reply)) {
    // The whole call was refused (shape, layout, fence, paused) or never answered.
    const written: Written = reply instanceof ReplyError ? 'no' : 'maybe';
    for (const item of call.items) {
      results[item.index] = classifyFailure(reply instanceof Error ? reply : unexpected(reply), {
        jobId: item.id,
        written,
      });
    }
    return;
  }
  const confirmed = confirmedBy(connection.config.ackReplicas, confirmation);
  call.items.forEach((item, at) => {
    const outcome = settleItem(item, reply[at], confirmed);
    if (outcome !== undefined) results[item.index] = outcome;
    else if (item.proposals < MAX_PROPOSALS) {
      propose(connection, item);
      again.push(item);
    } else {
      results[item.index] = new UnavailableError(
        'Could not find a free job id after several tries (id collisions); retry the request.',
      );
    }
  });
}

/** True when WAIT was not asked for or enough replicas confirmed; else the failure to report. */
function confirmedBy(ackReplicas: number, confirmation: Reply): true | false | EmqError {
  if (ackReplicas === 0) return true;
  if (confirmation instanceof Error) return classifyFailure(confirmation, { written: 'yes' });
  return Number(confirmation) >= ackReplicas;
}

/** One admission's result, or undefined when its proposed id was taken (status 2). */
function settleItem(
  item: Item,
  reply: Reply,
  confirmed: true | false | EmqError,
): AdmissionResult | undefined {
  const { queue } = item;
  if (reply instanceof Error) return classifyFailure(reply, { jobId: item.id, written: 'no' });
  const [status, id] = Array.isArray(reply) ? reply : [];
  if (typeof id !== 'string') return classifyFailure(unexpected(reply), { jobId: item.id });
  if (status === 1 || status === 0) {
    if (confirmed === true) return { queue, id, status: status === 1 ? 'enqueued' : 'duplicate' };
    if (confirmed !== false) return withJob(confirmed, id);
    return new UnconfirmedError(
      `Job ${id} of queue ${queue} was written but not yet confirmed by enough replicas; retry with the same key or id.`,
      { jobId: id, written: 'yes' },
    );
  }
  if (status === -1) {
    return item.idSource === CALLER_ID
      ? new ConflictError(
          'EMQ_CONFLICT',
          `Job ${id} already exists in queue ${queue} with a different payload. Use a new id, or resend the original payload.`,
          { jobId: id },
        )
      : new ConflictError(
          'EMQ_IDEMPOTENCY_MISMATCH',
          `This idempotency key was already used for job ${id} with a different payload. Use a new key for a new request.`,
          { jobId: id },
        );
  }
  if (status === 2 && item.idSource === MINTED_ID && id === item.id) return undefined;
  return classifyFailure(unexpected(reply), { jobId: item.id });
}

function withJob(error: EmqError, jobId: string): EmqError {
  return classifyFailure(error.cause, { jobId, written: 'yes' });
}

function unexpected(reply: Reply): Error {
  return new Error(
    `unexpected admit reply of type ${Array.isArray(reply) ? 'array' : typeof reply}`,
  );
}

/** The items of a round, one group per queue, each at most MAX_ADMISSIONS_PER_CALL long. */
function callsOf(round: readonly Item[]): (readonly Item[])[] {
  const queue = (round[0] as Item).queue;
  // The common round: one queue, one call.
  if (round.length <= MAX_ADMISSIONS_PER_CALL && round.every((item) => item.queue === queue)) {
    return [round];
  }
  const byQueue = new Map<string, Item[][]>();
  for (const item of round) {
    const groups = byQueue.get(item.queue);
    const last = groups?.at(-1);
    if (groups === undefined) byQueue.set(item.queue, [[item]]);
    else if ((last as Item[]).length < MAX_ADMISSIONS_PER_CALL) (last as Item[]).push(item);
    else groups.push([item]);
  }
  return [...byQueue.values()].flat();
}

function argsOf(item: Item): AdmissionArgs {
  return {
    rowKey: trustedJobKey(item.queue, item.id),
    idSource: item.idSource,
    digest: item.digest,
    field: item.field,
    payload: item.payload,
  };
}

/** Sends one round: every live item once. Returns the items that need another round. */
export async function admitRound(
  connection: Connection,
  round: readonly Item[],
  results: AdmissionResult[],
): Promise<Item[]> {
  const { config, family, client } = connection;
  const ttlMs = String(config.dedupeTtlMs);
  const calls = callsOf(round).map((items): QueueCall => {
    const keys = trustedQueueKeys((items[0] as Item).queue);
    const command = family.admit({
      pendingKey: keys.pendingKey,
      recordSlotKeys: keys.recordSlotKeys,
      wire: config.wire,
      ttlMs,
      admissions: items.map(argsOf),
    });
    return { items, slot: keys.slot, command };
  });
  const again: Item[] = [];
  // A standalone server, or one queue: one node, nothing to group.
  if (calls.length === 1 || !client.isCluster) {
    await admitOnNode(connection, calls, results, again);
    return again;
  }
  const byNode = new Map<string, QueueCall[]>();
  for (const call of calls) {
    const node = nodeNameOf(client, call.slot);
    const same = byNode.get(node);
    if (same === undefined) byNode.set(node, [call]);
    else same.push(call);
  }
  await Promise.all(
    [...byNode.values()].map((same) => admitOnNode(connection, same, results, again)),
  );
  return again;
}

/** One node's calls in one write, WAIT at its end when acknowledgements are required. */
async function admitOnNode(
  connection: Connection,
  calls: readonly QueueCall[],
  results: AdmissionResult[],
  again: Item[],
): Promise<void> {
  const { config, client } = connection;
  const slot = (calls[0] as QueueCall).slot;
  const commands = calls.map((call) => call.command);
  if (config.ackReplicas > 0) {
    commands.push(new Command('wait', [String(config.ackReplicas), String(config.ackTimeoutMs)]));
  }
  const replies = await sendToNode(client, slot, commands);
  const confirmation = config.ackReplicas > 0 ? replies[calls.length] : undefined;
  let reloaded = false;
  for (let at = 0; at < calls.length; at++) {
    const call = calls[at] as QueueCall;
    const reply = replies[at];
    if (reply instanceof Error && /^NOSCRIPT\b/.test(reply.message)) {
      // The call never ran: load the script where it is missing and send it again.
      if (call.items.every((item) => item.loads < MAX_LOADS)) {
        if (!reloaded) await connection.loadScript(call.slot).catch(() => {});
        reloaded = true;
        for (const item of call.items) item.loads += 1;
        again.push(...call.items);
        continue;
      }
    }
    settleCall(connection, call, reply, confirmation, results, again);
  }
}
