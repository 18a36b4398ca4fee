/**
 * Runs many small flows together in rounds. Each flow yields the commands of its next step
 * and receives their replies; a round sends every flow's step in one pipeline per cluster
 * node (one socket write per node), so a batch costs one round trip per node per step,
 * however many requests it holds.
 */
import { Cluster, Command, Pipeline, type Valkey } from 'iovalkey';
import type { EnqueueCall, Executor } from './executors/executor.js';
import { enqueueCommand, nativeExecutor } from './executors/native.js';
import { trustedJobKey, trustedPendingKey, trustedQueueSlot } from './keyspace.js';
import { classifyFailure, type EmqError } from './outcomes.js';

/** One command of a flow's step. Every op names its queue, which decides its slot. */
export type Op =
  | {
      readonly kind: 'enqueue';
      readonly queue: string;
      readonly id: string;
      readonly payload: Buffer;
    }
  /**
   * `SET dedupe id NX GET PX ttl`: record `id` for the key unless one is recorded; reply the
   * earlier id or null. `dedupe` is the record's key (keyspace.ts builds it).
   */
  | { readonly kind: 'claim'; readonly queue: string; readonly dedupe: string; readonly id: string }
  /** `SET dedupe id PX ttl`: point the key at another id. */
  | {
      readonly kind: 'repoint';
      readonly queue: string;
      readonly dedupe: string;
      readonly id: string;
    }
  /** `HGET row payload`, as bytes. */
  | { readonly kind: 'readPayload'; readonly queue: string; readonly id: string }
  /** `DEL row` and `ZREM pending id`: take back a row this host wrote by mistake. */
  | { readonly kind: 'deleteRow'; readonly queue: string; readonly id: string }
  | { readonly kind: 'unlist'; readonly queue: string; readonly id: string };

/** A reply: the server's value, or the Error for that command. */
export type Reply = unknown;

/** A flow: yields the ops of each step, receives their replies, returns its result or throws. */
export type Flow<T> = Generator<readonly Op[], T, Reply[]>;

/** What the rounds need of a connection. */
export interface RoundTarget {
  readonly client: Valkey | Cluster;
  readonly executor: Executor;
  readonly dedupeTtlMs: number;
  /** A name for the node that serves `slot`; ops for one name share one pipeline. */
  nodeOf(slot: number): string;
}

interface Running<T> {
  readonly index: number;
  readonly flow: Flow<T>;
  ops: readonly Op[];
  replies: Reply[];
}

/** Runs every flow to its end; returns each one's result or error, in input order. */
export async function runFlows<T>(
  target: RoundTarget,
  flows: Flow<T>[],
): Promise<(T | EmqError)[]> {
  const results = new Array<T | EmqError>(flows.length);
  let running: Running<T>[] = [];
  const advance = (item: Running<T>, replies: Reply[] | undefined): void => {
    try {
      const step = replies === undefined ? item.flow.next() : item.flow.next(replies);
      if (step.done) {
        results[item.index] = step.value;
      } else {
        item.ops = step.value;
        running.push(item);
      }
    } catch (error) {
      results[item.index] = classifyFailure(error);
    }
  };

  flows.forEach((flow, index) => {
    advance({ index, flow, ops: [], replies: [] }, undefined);
  });
  while (running.length > 0) {
    const round = running;
    running = [];
    await Promise.all([...groupByNode(target, round).values()].map((group) => send(target, group)));
    for (const item of round) advance(item, item.replies);
  }
  return results;
}

function groupByNode<T>(target: RoundTarget, round: Running<T>[]): Map<string, Running<T>[]> {
  const groups = new Map<string, Running<T>[]>();
  for (const item of round) {
    // A flow's ops in one step all concern one queue, so the first names the node.
    const first = item.ops[0];
    const node = first === undefined ? '' : target.nodeOf(trustedQueueSlot(first.queue));
    const group = groups.get(node);
    if (group === undefined) groups.set(node, [item]);
    else group.push(item);
  }
  return groups;
}

async function send<T>(target: RoundTarget, group: Running<T>[]): Promise<void> {
  if (target.executor === nativeExecutor && !(target.client instanceof Cluster)) {
    return sendDirect(target.client, group, String(target.dedupeTtlMs));
  }
  const pipeline = new Pipeline(target.client);
  const ttl = String(target.dedupeTtlMs);
  for (const item of group) {
    for (const op of item.ops) addOp(target, pipeline, op, ttl);
  }
  let replies: [Error | null, unknown][];
  try {
    replies = (await pipeline.exec()) ?? [];
  } catch (error) {
    for (const item of group) item.replies = item.ops.map(() => error);
    return;
  }
  // A pipeline over several slots of a moved node is not redirected by the client (its MOVED
  // answers differ per slot) and nothing else refreshes the slot map: refresh it here, so the
  // caller's retry (MOVED classifies as unavailable) reaches the new owner.
  if (target.client instanceof Cluster && replies.some(([error]) => isRedirect(error))) {
    target.client.refreshSlotsCache();
  }
  let at = 0;
  for (const item of group) {
    item.replies = item.ops.map(() => {
      const [error, value] = replies[at++] ?? [new Error('Connection is closed.'), undefined];
      return error ?? value;
    });
  }
}

/**
 * One standalone node and the native executor: the round's commands go to the client with a
 * writer that joins them into one socket write, as a Pipeline does, without the Pipeline's
 * bookkeeping (it costs more than the commands on a single request). Clusters keep the
 * Pipeline, which routes and follows redirections; the script executor keeps it for its
 * EVALSHA/EVAL fallback.
 */
async function sendDirect<T>(client: Valkey, group: Running<T>[], ttl: string): Promise<void> {
  const writer = new BatchWriter(client);
  const pending: Promise<void>[] = [];
  try {
    for (const item of group) {
      const replies: Reply[] = new Array(item.ops.length);
      item.replies = replies;
      item.ops.forEach((op, at) => {
        const command = commandOf(op, ttl);
        try {
          client.sendCommand(command, writer);
        } catch (error) {
          // Not queued, so no reply will come for it: its failure is its reply.
          replies[at] = error;
          return;
        }
        pending.push(
          command.promise.then(
            (value: unknown) => {
              replies[at] = value;
            },
            (error: unknown) => {
              replies[at] = error;
            },
          ),
        );
      });
    }
  } finally {
    // Whatever iovalkey queued must reach the socket, or later replies would be matched to
    // the wrong commands.
    writer.flush();
  }
  await Promise.all(pending);
}

/**
 * Collects what iovalkey writes for each command of a round and sends it in one write. A
 * command iovalkey writes later (resent after a reconnect) goes straight to the socket.
 */
class BatchWriter {
  readonly isPipeline = true;
  readonly destination: { readonly redis: Valkey };
  #parts: (string | Buffer)[] | undefined = [];

  constructor(client: Valkey) {
    this.destination = { redis: client };
  }

  write(data: string | Buffer): void {
    if (this.#parts === undefined) this.destination.redis.stream.write(data);
    else this.#parts.push(data);
  }

  flush(): void {
    const parts = this.#parts ?? [];
    this.#parts = undefined;
    if (parts.length === 0) return;
    this.destination.redis.stream.write(
      parts.length === 1 ? (parts[0] as string | Buffer) : joined(parts),
    );
  }
}

/** The parts in one buffer, allocated once (claims come as strings, writes as buffers). */
function joined(parts: readonly (string | Buffer)[]): Buffer {
  let total = 0;
  for (const part of parts)
    total += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (const part of parts)
    at += typeof part === 'string' ? out.write(part, at) : part.copy(out, at);
  return out;
}

function isRedirect(error: Error | null): boolean {
  return error !== null && /^(MOVED|ASK) /.test(error.message);
}

function addOp(target: RoundTarget, pipeline: Pipeline, op: Op, ttl: string): void {
  if (op.kind === 'enqueue') target.executor.enqueue(pipeline, enqueueCallOf(op));
  else pipeline.sendCommand(commandOf(op, ttl));
}

// Every op's queue and id were validated when its flow began (or the id was minted or read
// back as a valid id), so the keys are built without checking them again.
function enqueueCallOf(op: Extract<Op, { kind: 'enqueue' }>): EnqueueCall {
  return {
    jobKey: trustedJobKey(op.queue, op.id),
    pendingKey: trustedPendingKey(op.queue),
    id: op.id,
    payload: op.payload,
  };
}

function commandOf(op: Op, ttl: string): Command {
  switch (op.kind) {
    case 'enqueue':
      return enqueueCommand(enqueueCallOf(op));
    case 'claim':
      return new ClaimCommand(op.dedupe, op.id, ttl);
    case 'repoint':
      return new Command('set', [op.dedupe, op.id, 'PX', ttl]);
    case 'readPayload':
      return new Command('hget', [trustedJobKey(op.queue, op.id), 'payload']);
    case 'deleteRow':
      return new Command('del', [trustedJobKey(op.queue, op.id)]);
    case 'unlist':
      return new Command('zrem', [trustedPendingKey(op.queue), op.id]);
  }
}

/**
 * `SET <dedupe> <id> NX GET PX <ttl>`, the claim every keyed request sends, encoded from one
 * template: iovalkey's generic encoder costs more than the command on the hot path.
 */
class ClaimCommand extends Command {
  private readonly dedupe: string;
  private readonly id: string;
  private readonly ttl: string;

  constructor(dedupe: string, id: string, ttl: string) {
    super('set', [dedupe, id, 'NX', 'GET', 'PX', ttl], { replyEncoding: 'utf8' });
    this.dedupe = dedupe;
    this.id = id;
    this.ttl = ttl;
  }

  override toWritable(): string {
    const { dedupe, id, ttl } = this;
    return `*7\r\n$3\r\nset\r\n$${Buffer.byteLength(dedupe)}\r\n${dedupe}\r\n$${Buffer.byteLength(id)}\r\n${id}\r\n$2\r\nNX\r\n$3\r\nGET\r\n$2\r\nPX\r\n$${Buffer.byteLength(ttl)}\r\n${ttl}\r\n`;
  }
}
