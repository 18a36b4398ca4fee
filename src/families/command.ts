/**
 * A command that names its routing key and encodes itself in one buffer. Written against
 * iovalkey 0.4.0: it overrides Command's getKeys() and toWritable(), which the client and the
 * cluster call to route (by slot) and to write a command. Its `args` stay empty: nothing in
 * iovalkey needs them once toWritable() is ours, a failed command's error then carries no
 * payload (iovalkey attaches `command.args` to error replies), and no argument is copied twice.
 */
import { Command } from 'iovalkey';

type Part = string | Buffer;

const CR = 0x0d;
const LF = 0x0a;
const ZERO = 0x30;

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
   * The command in RESP, allocated once. The `*n` and `$len` headers are written byte by byte
   * and each argument with one call (latin1 where it is ASCII, which is every key and id):
   * an admit call has some 65 arguments, and a string per header (iovalkey's own encoder
   * joins pieces when an argument is a Buffer) cost more than the rest of the encoding.
   */
  override toWritable(): Buffer {
    const parts = this.#parts;
    const count = parts.length;
    const lengths = new Array<number>(count);
    let size = 3 + digitsOf(count);
    for (let at = 0; at < count; at++) {
      const part = parts[at] as Part;
      const length = typeof part === 'string' ? Buffer.byteLength(part) : part.length;
      lengths[at] = length;
      size += 5 + digitsOf(length) + length;
    }
    const out = Buffer.allocUnsafe(size);
    let at = header(out, 0, 0x2a, count);
    for (let index = 0; index < count; index++) {
      const part = parts[index] as Part;
      const length = lengths[index] as number;
      at = header(out, at, 0x24, length);
      if (typeof part !== 'string') out.set(part, at);
      // A string whose UTF-8 length is its length is ASCII: latin1 writes the same bytes.
      else if (length === part.length) out.write(part, at, length, 'latin1');
      else out.write(part, at, length, 'utf8');
      at += length;
      out[at++] = CR;
      out[at++] = LF;
    }
    return out;
  }
}

function digitsOf(value: number): number {
  return value < 10 ? 1 : value < 100 ? 2 : value < 1000 ? 3 : String(value).length;
}

/** Writes `<sigil><value>\r\n` at `at`; answers where the next byte goes. */
function header(out: Buffer, at: number, sigil: number, value: number): number {
  let next = at;
  out[next++] = sigil;
  if (value < 10) out[next++] = ZERO + value;
  else if (value < 100) {
    out[next++] = ZERO + Math.floor(value / 10);
    out[next++] = ZERO + (value % 10);
  } else if (value < 1000) {
    out[next++] = ZERO + Math.floor(value / 100);
    out[next++] = ZERO + (Math.floor(value / 10) % 10);
    out[next++] = ZERO + (value % 10);
  } else next += out.write(String(value), next, 'latin1');
  out[next++] = CR;
  out[next++] = LF;
  return next;
}
