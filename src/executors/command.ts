/**
 * A command that names its routing key and encodes itself in one buffer. Written against
 * iovalkey 0.4.0: it overrides Command's getKeys() and toWritable(), which the client and the
 * cluster call to route (by slot) and to write a command. Its `args` stay empty: nothing in
 * iovalkey needs them once toWritable() is ours, a failed command's error then carries no
 * payload (iovalkey attaches `command.args` to error replies), and no argument is copied twice.
 */
import { Command } from 'iovalkey';

type Part = string | Buffer;

export class KeyedCommand extends Command {
  readonly #key: string;
  readonly #parts: readonly Part[];

  /** `parts` is the whole command, name first; `key` is one of its keys (all share a slot). */
  constructor(parts: readonly Part[], key: string) {
    super(String(parts[0]), [], { replyEncoding: 'utf8' });
    this.#key = key;
    this.#parts = parts;
  }

  /** iovalkey does not know EMQ.*, FCALL or EVALSHA key positions: without this it picks a random node. */
  override getKeys(): string[] {
    return [this.#key];
  }

  /**
   * The command in RESP, allocated once. iovalkey's own encoder collects pieces and joins
   * them when an argument is a Buffer, which costs more than the write on the hot path.
   */
  override toWritable(): Buffer {
    const parts = this.#parts;
    const lengths = new Array<number>(parts.length);
    let size = 3 + String(parts.length).length;
    for (let at = 0; at < parts.length; at++) {
      const part = parts[at] as Part;
      const length = typeof part === 'string' ? Buffer.byteLength(part) : part.length;
      lengths[at] = length;
      size += 5 + String(length).length + length;
    }
    const out = Buffer.allocUnsafe(size);
    let at = out.write(`*${parts.length}\r\n`, 0, 'latin1');
    for (let index = 0; index < parts.length; index++) {
      const part = parts[index] as Part;
      at += out.write(`$${lengths[index]}\r\n`, at, 'latin1');
      at += typeof part === 'string' ? out.write(part, at, 'utf8') : part.copy(out, at);
      out[at++] = 0x0d;
      out[at++] = 0x0a;
    }
    return out;
  }
}
