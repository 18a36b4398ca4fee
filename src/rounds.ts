/**
 * One round: every request's command of this step, one pipeline per node (one socket write
 * each), all nodes at once. Where writes must reach replicas (EMQ_ACK_REPLICAS, SPEC §11) a
 * node's pipeline that writes ends with WAIT, in the same round trip; each write then learns
 * whether the replicas confirmed it.
 */
import { type Cluster, Command, type Valkey } from 'iovalkey';
import type { Executor } from './executors/executor.js';
import { trustedQueueSlot } from './keyspace.js';
import { type Reply, sendAll } from './transport.js';

export type { Reply };

/** What a round needs of a connection. */
export interface RoundTarget {
  readonly client: Valkey | Cluster;
  readonly executor: Executor;
  readonly dedupeTtlMs: number;
  /** Replicas that must confirm every write (WAIT). 0: none. */
  readonly ackReplicas: number;
  /** How long WAIT may wait for them. */
  readonly ackTimeoutMs: number;
  /** A name for the node that serves `slot`; commands for one name share one pipeline. */
  nodeOf(slot: number): string;
}

export interface Sent {
  readonly queue: string;
  readonly command: Command;
  /** The command may write (an admission): its node's pipeline is confirmed by WAIT. */
  readonly writes: boolean;
}

export interface Answer {
  readonly reply: Reply;
  /** True when WAIT confirmed this pipeline's writes, or none was asked for. */
  readonly confirmed: boolean;
}

/** Sends the round; resolves with one answer per command, in input order; never rejects. */
export async function sendRound(target: RoundTarget, round: readonly Sent[]): Promise<Answer[]> {
  const answers = new Array<Answer>(round.length);
  const groups = new Map<string, number[]>();
  round.forEach((sent, at) => {
    const node = target.nodeOf(trustedQueueSlot(sent.queue));
    const group = groups.get(node);
    if (group === undefined) groups.set(node, [at]);
    else group.push(at);
  });
  await Promise.all(
    [...groups.values()].map(async (indexes) => {
      const commands = indexes.map((at) => (round[at] as Sent).command);
      const wait =
        target.ackReplicas > 0 && indexes.some((at) => round[at]?.writes)
          ? new Command('wait', [String(target.ackReplicas), String(target.ackTimeoutMs)])
          : undefined;
      const replies = await sendAll(target.client, wait ? [...commands, wait] : commands);
      const confirmed =
        wait === undefined || Number(replies[commands.length]) >= target.ackReplicas;
      indexes.forEach((at, i) => {
        answers[at] = { reply: replies[i], confirmed };
      });
    }),
  );
  return answers;
}
