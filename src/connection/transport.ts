/**
 * Sends one node's commands as one socket write and settles their replies with one callback.
 * Written against iovalkey 0.4.0 and fenced here because it leans on its internals:
 *
 * - A ready client's `stream` is the socket and `commandQueue` the FIFO its reply parser
 *   (DataHandler) shifts, calling `resolve(reply)` or `reject(error)` on each item's `command`
 *   and reading its `name` and `args`; on a close it rejects what is left (flushQueue, which
 *   clients.ts's maxRetriesPerRequest 0 makes it do on every close; abortIncompletePipelines,
 *   which reads `pipelineIndex`). Redis#sendCommand writes and pushes
 *   the same way when its client is ready. So a ready client takes our write and our queue
 *   items directly: no Promise, `.finally` and timer per command, and one per-connection
 *   timer stands for iovalkey's per-command `commandTimeout` (the same "Command timed out").
 * - Any other state (connecting, closed, subscriber mode, a socket timeout set) goes through
 *   Valkey#sendCommand(command, stream) with a stream that says `isPipeline` (Redis.js), so
 *   iovalkey decides and words the refusal as it always does.
 * - A cluster's node clients are the ones `nodes('master')` lists, keyed by the `host:port`
 *   strings of `cluster.slots`; `isRefreshing` is true while a slot-map read is under way, and
 *   a refreshSlotsCache() called then answers at once, before that read ends.
 */
import { Cluster, type Command, Pipeline, type Valkey } from 'iovalkey';
import { Deadlines, joined, type Reply, Write } from './replies.js';

export type { Reply } from './replies.js';

/** The name of the node that serves `slot`: commands for one name go in one write. */
export function nodeNameOf(client: Valkey | Cluster, slot: number): string {
  return client instanceof Cluster ? (client.slots[slot]?.[0] ?? `slot:${slot}`) : '';
}

/**
 * Sends `commands`, which all go to the node serving `slot`, and resolves with one reply per
 * command, in order; never rejects. A MOVED, ASK or timeout reply refreshes the cluster's slot
 * map, so that a call sent again reaches the new owner (STALE_MAP).
 */
export async function sendToNode(
  client: Valkey | Cluster,
  slot: number,
  commands: readonly Command[],
): Promise<Reply[]> {
  if (!(client instanceof Cluster)) return direct(client, commands);
  const node = nodeClientOf(client, slot);
  const replies =
    node === undefined ? await viaPipeline(client, commands) : await direct(node, commands);
  if (replies.some((reply) => reply instanceof Error && STALE_MAP.test(reply.message))) {
    client.refreshSlotsCache();
  }
  return replies;
}

/**
 * Replies after which the slot map is read again. MOVED and ASK: the slot moved. A timeout: a
 * node that stays silent (a lost host, a blackholed route) never closes its socket, and the map
 * read again names its replica once promoted; the pool then drops the demoted node's socket. A
 * node the map still names keeps its socket: a timeout there may be a write held by a pause,
 * which still runs when the pause ends.
 */
const STALE_MAP = /^(MOVED |ASK |Command timed out$)/;

/**
 * Reads the cluster's slot map again (or waits for the read under way) for at most `ms`.
 * Resolves true once a read succeeded, false when none did in time.
 */
export function refreshTopology(cluster: Cluster, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const done = (ok: boolean) => {
      clearTimeout(timer);
      cluster.off('refresh', refreshed);
      resolve(ok);
    };
    const refreshed = () => done(true);
    timer = setTimeout(() => done(false), Math.max(0, ms));
    cluster.once('refresh', refreshed);
    // A read under way answers a new one at once, before it ends: wait for its 'refresh' then.
    if (!(cluster as unknown as { isRefreshing?: boolean }).isRefreshing) {
      cluster.refreshSlotsCache((error) => {
        if (error) done(false);
      });
    }
  });
}

/** The client of the primary that serves `slot` (the client itself when standalone), if known. */
export function nodeClientOf(client: Valkey | Cluster, slot: number): Valkey | undefined {
  if (!(client instanceof Cluster)) return client;
  const name = client.slots[slot]?.[0];
  if (name === undefined) return undefined;
  return client
    .nodes('master')
    .find((node) => `${node.options.host}:${node.options.port}` === name);
}

/** A slot the client has no node for yet: the cluster's own routing (it may wait for a map). */
async function viaPipeline(cluster: Cluster, commands: readonly Command[]): Promise<Reply[]> {
  const pipeline = new Pipeline(cluster);
  for (const command of commands) pipeline.sendCommand(command);
  let replies: [Error | null, unknown][];
  try {
    replies = (await pipeline.exec()) ?? [];
  } catch (error) {
    return commands.map(() => error);
  }
  return commands.map((_, at) => {
    const [error, value] = replies[at] ?? [new Error('Connection is closed.'), undefined];
    return error ?? value;
  });
}

/** What of a client this module reads and writes (iovalkey 0.4.0 keeps them untyped). */
interface Internals {
  readonly status: string;
  readonly stream: { readonly writable: boolean; write(data: string | Buffer): boolean };
  readonly commandQueue: { push(item: QueueItem): void };
  readonly condition: { readonly select: number; readonly subscriber: unknown } | null;
  readonly options: {
    readonly commandTimeout?: number;
    readonly socketTimeout?: number;
    readonly reconnectOnError?: unknown;
    readonly autoResendUnfulfilledCommands?: boolean;
  };
}

interface QueueItem {
  readonly command: Settler;
  readonly stream: undefined;
  readonly select: number;
}

function direct(client: Valkey, commands: readonly Command[]): Promise<Reply[]> {
  const internals = client as unknown as Internals;
  return isWritable(internals) ? written(internals, commands) : viaSendCommand(client, commands);
}

/**
 * Ready, writable, in plain command mode: our own write. Options under which iovalkey would
 * send a queued command again itself (reconnectOnError, autoResendUnfulfilledCommands, which
 * the connector turns off) or arm a socket timeout keep iovalkey's own path.
 */
function isWritable(client: Internals): boolean {
  const { options } = client;
  return (
    client.status === 'ready' &&
    client.stream?.writable === true &&
    !client.condition?.subscriber &&
    options.socketTimeout === undefined &&
    !options.reconnectOnError &&
    options.autoResendUnfulfilledCommands === false
  );
}

/** One write, one queue item per command, one callback when the last reply has come. */
function written(client: Internals, commands: readonly Command[]): Promise<Reply[]> {
  return new Promise((resolve) => {
    const write = new Write(commands.length, resolve);
    const parts: (string | Buffer)[] = [];
    const queued: Settler[] = [];
    for (let at = 0; at < commands.length; at++) {
      const command = commands[at] as Command;
      try {
        parts.push(command.toWritable(client.stream as never));
        queued.push(new Settler(command, write, at));
      } catch (error) {
        // Not written, so no reply will come for it: its failure is its reply.
        write.settle(at, error);
      }
    }
    if (queued.length === 0) return;
    // Queued in write order, in the same turn as the write, as Redis#sendCommand does.
    const select = client.condition?.select ?? 0;
    for (const command of queued) client.commandQueue.push({ command, stream: undefined, select });
    client.stream.write(parts.length === 1 ? (parts[0] as string | Buffer) : joined(parts));
    const timeout = client.options.commandTimeout;
    if (typeof timeout === 'number') deadlinesOf(client).add(write, timeout);
  });
}

/** A queue item's command: what iovalkey's reply parser and close handlers call. */
class Settler {
  readonly name: string;
  readonly args: readonly unknown[] = [];
  readonly inTransaction = false;
  readonly pipelineIndex = undefined;
  readonly #command: Command;
  readonly #write: Write;
  readonly #at: number;

  constructor(command: Command, write: Write, at: number) {
    this.name = command.name;
    this.#command = command;
    this.#write = write;
    this.#at = at;
  }

  get isResolved(): boolean {
    return this.#write.settled;
  }

  resolve(reply: unknown): void {
    let value: unknown;
    try {
      // The command's own reply encoding (KeyedCommand asks for UTF-8 strings).
      value = this.#command.transformReply(reply as Buffer);
    } catch (error) {
      value = error;
    }
    this.#write.settle(this.#at, value);
  }

  reject(error: unknown): void {
    this.#write.settle(this.#at, error);
  }
}

const deadlines = new WeakMap<Internals, Deadlines>();

function deadlinesOf(client: Internals): Deadlines {
  let found = deadlines.get(client);
  if (found === undefined) {
    found = new Deadlines();
    deadlines.set(client, found);
  }
  return found;
}

/** Through iovalkey's own sendCommand, collected into one write: for a client not ready. */
async function viaSendCommand(client: Valkey, commands: readonly Command[]): Promise<Reply[]> {
  const writer = new WriteCollector(client);
  const replies: Reply[] = new Array(commands.length);
  const pending: Promise<void>[] = [];
  try {
    commands.forEach((command, at) => {
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
  } finally {
    // Whatever iovalkey queued must reach the socket, or later replies would be matched to
    // the wrong commands.
    writer.flush();
  }
  await Promise.all(pending);
  return replies;
}

/** Collects what iovalkey writes for each command and sends it in one write. */
class WriteCollector {
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
