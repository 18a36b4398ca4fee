/**
 * Sends one node's commands as one socket write and collects their replies. Written against
 * iovalkey 0.4.0 and fenced here because it leans on its internals: Valkey#sendCommand(command,
 * stream) writes through a stream that says `isPipeline` (Redis.js), and `client.stream` is
 * the socket. A Pipeline does the same with bookkeeping that costs more than the commands.
 */
import { Cluster, type Command, Pipeline, type Valkey } from 'iovalkey';

/** A reply: the server's value, or the Error for that command. */
export type Reply = unknown;

/**
 * Sends `commands` to the node that serves them (they share one slot's node) and resolves
 * with one reply per command, in order; never rejects.
 */
export function sendAll(client: Valkey | Cluster, commands: readonly Command[]): Promise<Reply[]> {
  return client instanceof Cluster ? viaPipeline(client, commands) : direct(client, commands);
}

/**
 * Clusters keep the Pipeline: it routes by slot and follows redirections. It may re-run a
 * pipeline whose commands all failed with "Connection is closed."; every admission is
 * idempotent (SPEC §5), so a re-run cannot make a second job.
 */
async function viaPipeline(cluster: Cluster, commands: readonly Command[]): Promise<Reply[]> {
  const pipeline = new Pipeline(cluster);
  for (const command of commands) pipeline.sendCommand(command);
  let replies: [Error | null, unknown][];
  try {
    replies = (await pipeline.exec()) ?? [];
  } catch (error) {
    return commands.map(() => error);
  }
  // A pipeline over several slots of a moved node is not redirected by the client (its MOVED
  // answers differ per slot) and nothing else refreshes the slot map: refresh it here, so the
  // caller's retry (MOVED classifies as unavailable) reaches the new owner.
  if (replies.some(([error]) => error !== null && /^(MOVED|ASK) /.test(error.message))) {
    cluster.refreshSlotsCache();
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
