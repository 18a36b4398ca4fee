/**
 * TEST HARNESS ONLY: the target proxy's reader of what a client sends (proxy.ts). It splits
 * the byte stream into commands, each with its arguments and its exact bytes, so the proxy
 * can record, refuse or forward them verbatim. Clients send RESP arrays of bulk strings;
 * inline commands (a line of words, as telnet sends) are read too. Anything else is a
 * protocol error, on which the proxy closes the connection as a server would.
 */

export interface Request {
  /** Every argument, the command name first (slices of `raw`, never copied). */
  readonly args: readonly Buffer[];
  /** The command's bytes as the client sent them. */
  readonly raw: Buffer;
}

export class ProtocolError extends Error {}

const CR = 13;
const LF = 10;
const MAX_LINE = 64 * 1024;

type Parsed =
  | { readonly request: Request | undefined; readonly end: number }
  | { readonly need: number };

export class RequestParser {
  #chunks: Buffer[] = [];
  #length = 0;
  /** Bytes the next command needs in all; nothing is parsed until that many arrived. */
  #need = 0;

  /** Adds bytes; returns the commands they complete, in order. */
  push(chunk: Buffer): Request[] {
    this.#chunks.push(chunk);
    this.#length += chunk.length;
    if (this.#length < this.#need) return [];
    const buffer =
      this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks);
    const requests: Request[] = [];
    let offset = 0;
    for (;;) {
      if (offset >= buffer.length) break;
      const parsed = parseAt(buffer, offset);
      if ('need' in parsed) {
        this.#need = parsed.need - offset;
        break;
      }
      if (parsed.request !== undefined) requests.push(parsed.request);
      offset = parsed.end;
    }
    const rest = buffer.subarray(offset);
    this.#chunks = rest.length === 0 ? [] : [rest];
    this.#length = rest.length;
    if (rest.length === 0) this.#need = 0;
    return requests;
  }
}

/** The end of the line starting at `from` (the index of its CR), or -1 if not all here. */
function lineEnd(buffer: Buffer, from: number): number {
  const at = buffer.indexOf(LF, from);
  if (at === -1) {
    if (buffer.length - from > MAX_LINE) throw new ProtocolError('line too long');
    return -1;
  }
  if (at === from || buffer[at - 1] !== CR) throw new ProtocolError('line without CR');
  return at - 1;
}

function integer(buffer: Buffer, from: number, to: number): number {
  const text = buffer.toString('latin1', from, to);
  if (!/^-?\d+$/.test(text)) throw new ProtocolError(`not a number: ${text}`);
  return Number(text);
}

function parseAt(buffer: Buffer, start: number): Parsed {
  if (buffer[start] !== 0x2a /* '*' */) return parseInline(buffer, start);
  const headerEnd = lineEnd(buffer, start);
  if (headerEnd === -1) return { need: buffer.length + 1 };
  const count = integer(buffer, start + 1, headerEnd);
  let position = headerEnd + 2;
  if (count <= 0) return { request: undefined, end: position };
  const args: Buffer[] = [];
  for (let index = 0; index < count; index++) {
    if (position >= buffer.length) return { need: position + 1 };
    if (buffer[position] !== 0x24 /* '$' */) throw new ProtocolError('expected a bulk string');
    const end = lineEnd(buffer, position);
    if (end === -1) return { need: buffer.length + 1 };
    const length = integer(buffer, position + 1, end);
    if (length < 0) throw new ProtocolError('negative bulk length');
    const data = end + 2;
    if (data + length + 2 > buffer.length) return { need: data + length + 2 };
    args.push(buffer.subarray(data, data + length));
    position = data + length + 2;
  }
  return { request: { args, raw: buffer.subarray(start, position) }, end: position };
}

function parseInline(buffer: Buffer, start: number): Parsed {
  const at = buffer.indexOf(LF, start);
  if (at === -1) {
    if (buffer.length - start > MAX_LINE) throw new ProtocolError('inline command too long');
    return { need: buffer.length + 1 };
  }
  const line = buffer.toString('latin1', start, at).replace(/\r$/, '');
  const words = line.split(/\s+/).filter((word) => word !== '');
  const end = at + 1;
  if (words.length === 0) return { request: undefined, end };
  return {
    request: {
      args: words.map((word) => Buffer.from(word, 'latin1')),
      raw: buffer.subarray(start, end),
    },
    end,
  };
}
