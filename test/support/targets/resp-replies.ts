/**
 * TEST HARNESS ONLY: the target proxy's reader of what a server answers (proxy.ts). It finds
 * where each complete reply ends, without decoding it, so the proxy can pair replies with the
 * commands it forwarded and put its own answers in their place, in order. RESP2 and RESP3
 * types are framed; a RESP3 push (`>`) is no reply to any command and is marked as such.
 */
import { ProtocolError } from './resp-requests.js';

export interface Frame {
  /** The reply's bytes as the server sent them. */
  readonly raw: Buffer;
  /** A RESP3 push message: out of band, it answers no command. */
  readonly push: boolean;
}

const CR = 13;
const LF = 10;
const LINE_TYPES = new Set(['+', '-', ':', '_', ',', '#', '(']);
const BULK_TYPES = new Set(['$', '!', '=']);
const AGGREGATE_TYPES = new Set(['*', '~', '>']);

export class ReplyFramer {
  #buffer: Buffer = Buffer.alloc(0);
  /** Bytes the next reply needs in all; nothing is framed until that many arrived. */
  #need = 0;

  /** Adds bytes; call next() until it answers undefined. */
  push(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
  }

  /** The next complete reply, or undefined until more bytes arrive. */
  next(): Frame | undefined {
    if (this.#buffer.length === 0 || this.#buffer.length < this.#need) return undefined;
    const end = endOfValue(this.#buffer);
    if (typeof end !== 'number') {
      this.#need = end.need;
      return undefined;
    }
    this.#need = 0;
    const raw = this.#buffer.subarray(0, end);
    const push = this.#buffer[0] === 0x3e; /* '>' */
    this.#buffer = this.#buffer.subarray(end);
    return { raw, push };
  }

  /** Everything not framed yet; the framer is empty afterwards (the stream left RESP). */
  rest(): Buffer {
    const rest = this.#buffer;
    this.#buffer = Buffer.alloc(0);
    this.#need = 0;
    return rest;
  }
}

/** Where the value at the start of `buffer` ends, or how many bytes it needs at least. */
function endOfValue(buffer: Buffer): number | { need: number } {
  let position = 0;
  let remaining = 1;
  while (remaining > 0) {
    if (position >= buffer.length) return { need: position + 1 };
    const type = String.fromCharCode(buffer[position] as number);
    const lf = buffer.indexOf(LF, position);
    if (lf === -1) return { need: buffer.length + 1 };
    if (buffer[lf - 1] !== CR) throw new ProtocolError('reply line without CR');
    const header = buffer.toString('latin1', position + 1, lf - 1);
    const next = lf + 1;
    remaining -= 1;
    if (LINE_TYPES.has(type)) {
      position = next;
    } else if (BULK_TYPES.has(type)) {
      const length = Number(header);
      if (!Number.isInteger(length)) throw new ProtocolError(`bad bulk length ${header}`);
      if (length < 0) {
        position = next;
      } else {
        if (next + length + 2 > buffer.length) return { need: next + length + 2 };
        position = next + length + 2;
      }
    } else if (AGGREGATE_TYPES.has(type) || type === '%' || type === '|') {
      const count = Number(header);
      if (!Number.isInteger(count)) throw new ProtocolError(`bad aggregate length ${header}`);
      const elements = Math.max(count, 0) * (type === '%' || type === '|' ? 2 : 1);
      // An attribute is no value of its own: the value it describes follows it.
      remaining += elements + (type === '|' ? 1 : 0);
      position = next;
    } else {
      throw new ProtocolError(`unknown reply type ${JSON.stringify(type)}`);
    }
  }
  return position;
}
