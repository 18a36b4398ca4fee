/**
 * A command that names its keys and encodes itself in one buffer. Written against iovalkey
 * 0.4.0: it overrides Command's getKeys() and toWritable(), which the client and Pipeline
 * call to route (by slot) and to write a command.
 */
import { Command } from 'iovalkey';

type Part = string | Buffer;

export class KeyedCommand extends Command {
  readonly #keys: string[];
  readonly #parts: readonly Part[];

  /** `parts` is the whole command, name first; `keys` are the keys among them. */
  constructor(parts: readonly Part[], keys: string[]) {
    const [name, ...args] = parts;
    super(String(name), args, { replyEncoding: 'utf8' });
    this.#keys = keys;
    this.#parts = parts;
  }

  /** iovalkey does not know EMQ.* or FCALL key positions: without this it picks a random node. */
  override getKeys(): string[] {
    return this.#keys;
  }

  /**
   * The command in RESP, allocated once. iovalkey's own encoder collects pieces and joins
   * them when an argument is a Buffer, which costs more than the write on the hot path.
   */
  override toWritable(): Buffer {
    const parts = this.#parts;
    let size = 1 + String(parts.length).length + 2;
    const lengths = parts.map((part) =>
      typeof part === 'string' ? Buffer.byteLength(part) : part.length,
    );
    for (const length of lengths) size += 1 + String(length).length + 2 + length + 2;
    const out = Buffer.allocUnsafe(size);
    let at = out.write(`*${parts.length}\r\n`, 0, 'latin1');
    parts.forEach((part, index) => {
      at += out.write(`$${lengths[index]}\r\n`, at, 'latin1');
      at += typeof part === 'string' ? out.write(part, at, 'utf8') : part.copy(out, at);
      out[at++] = 0x0d;
      out[at++] = 0x0a;
    });
    return out;
  }
}
