/**
 * Sends one node's commands as one socket write and collects their replies. Written against
 * iovalkey 0.4.0 and fenced here because it leans on its internals: Valkey#sendCommand(command,
 * stream) writes through a stream that says `isPipeline` (Redis.js), `client.stream` is the
 * socket, and a cluster's node clients are the ones `nodes('master')` lists, keyed by the
 * `host:port` strings of `cluster.slots`. A Pipeline does the same with bookkeeping that costs
 * more than the commands, and could not keep a keyless WAIT on the node of the writes.
 */
import { Cluster, type Command, Pipeline, type Valkey } from 'iovalkey';

/** A reply: the server's value, or the Error for that command. */
export type Reply = unknown;

/** The name of the node that serves `slot`: commands for one name go in one write. */
export function nodeNameOf(client: Valkey | Cluster, slot: number): string {
  return client instanceof Cluster ? (client.slots[slot]?.[0] ?? `slot:${slot}`) : '';
}

/**
 * Sends `commands`, which all go to the node serving `slot`, and resolves with one reply per
 * command, in order; never rejects. A MOVED or ASK reply refreshes the cluster's slot map, so
 * the caller's retry (MOVED counts as unavailable) reaches the new owner.
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
  if (replies.some((reply) => reply instanceof Error && /^(MOVED|ASK) /.test(reply.message))) {
    client.refreshSlotsCache();
  }
  return replies;
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

async function direct(client: Valkey, commands: readonly Command[]): Promise<Reply[]> {
  const writer = new BatchWriter(client);
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

/** The parts in one buffer, allocated once. */
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
