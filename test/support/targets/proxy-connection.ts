/**
 * TEST HARNESS ONLY: one client connection through a target proxy (proxy.ts). Every command
 * is recorded; one the rules refuse is not sent on. Its answer must still arrive in order
 * among the server's replies to pipelined commands, and a refusal inside MULTI must abort the
 * transaction as an unknown command would. So in its place the proxy sends a stand-in command
 * the server does not know (one error reply, and a dirty transaction) and answers the client
 * with its own text instead of that reply.
 *
 * Modes the replies cannot be paired in (a replica's PSYNC stream, SUBSCRIBE, MONITOR, CLIENT
 * REPLY OFF|SKIP) turn the connection into a plain pipe from there on: still recorded, no
 * longer refused. No profile's product traffic enters them.
 */
import type { Socket } from 'node:net';
import type { CommandLog } from './command-log.js';
import { type Command, decide, type ProxyRules } from './proxy-rules.js';
import { type Frame, ReplyFramer } from './resp-replies.js';
import { type Request, RequestParser } from './resp-requests.js';

const STAND_IN_NAME = 'EMQ-HARNESS-PROXY-STAND-IN';
const STAND_IN = Buffer.from(`*1\r\n$${STAND_IN_NAME.length}\r\n${STAND_IN_NAME}\r\n`);
/** Commands after which replies no longer pair one to one with commands. */
const LEAVES_REQUEST_REPLY = new Set([
  'psync',
  'sync',
  'subscribe',
  'ssubscribe',
  'psubscribe',
  'monitor',
]);

type Slot =
  | { readonly kind: 'pass'; readonly onReply?: (frame: Frame) => void }
  | { readonly kind: 'replace'; readonly reply: Buffer }
  /** A command that leaves request-reply if it succeeds: later commands wait for its reply. */
  | { readonly kind: 'leave' }
  /** CLIENT REPLY OFF | SKIP: no reply of its own to wait for; piped from here. */
  | { readonly kind: 'raw' };

export interface ConnectionContext {
  readonly rules: ProxyRules;
  readonly log: CommandLog;
  /** Commands that take a subcommand (CLUSTER, CLIENT, SCRIPT, ...), lowercase. */
  readonly containers: ReadonlySet<string>;
}

export class ProxyConnection {
  readonly #client: Socket;
  readonly #upstream: Socket;
  readonly #context: ConnectionContext;
  readonly #requests = new RequestParser();
  readonly #replies = new ReplyFramer();
  readonly #slots: Slot[] = [];
  #user = 'default';
  #inMulti = false;
  /** Commands that arrived while a 'leave' command's reply is awaited, in order. */
  #held: Request[] | undefined;
  /** Requests no longer pair with replies: forward and record only. */
  #requestsRaw = false;
  /** Replies are piped as they come. */
  #repliesRaw = false;

  constructor(client: Socket, upstream: Socket, context: ConnectionContext) {
    this.#client = client;
    this.#upstream = upstream;
    this.#context = context;
    client.on('data', (chunk: Buffer) => this.#fromClient(chunk));
    upstream.on('data', (chunk: Buffer) => this.#fromServer(chunk));
  }

  #fromClient(chunk: Buffer): void {
    let requests: Request[];
    try {
      requests = this.#requests.push(chunk);
    } catch {
      this.#client.destroy();
      return;
    }
    this.#process(requests);
  }

  /** Handles commands in order until one must wait for its reply; the rest are held. */
  #process(requests: readonly Request[]): void {
    const out: Buffer[] = [];
    for (const [index, request] of requests.entries()) {
      if (this.#held !== undefined) {
        this.#held.push(...requests.slice(index));
        break;
      }
      out.push(this.#handle(request));
    }
    if (out.length > 0) send(this.#upstream, this.#client, Buffer.concat(out));
  }

  /** Records the command, updates the connection's state; returns what to send upstream. */
  #handle(request: Request): Buffer {
    const name = (request.args[0] ?? Buffer.alloc(0)).toString('latin1').toLowerCase();
    const second = request.args[1]?.toString('latin1').toLowerCase();
    const subcommand = this.#context.containers.has(name) ? second : undefined;
    const command: Command = { args: request.args, name, subcommand };
    const decision = this.#requestsRaw
      ? ({ kind: 'forward' } as const)
      : decide(command, { user: this.#user, inMulti: this.#inMulti }, this.#context.rules);
    this.#context.log.record({
      // AUTH and HELLO ... AUTH count as the user they authenticate.
      user: authenticatedAs(name, request.args) ?? this.#user,
      command: name,
      subcommand,
      refused: decision.kind === 'answer' ? decision.reason : undefined,
    });
    if (decision.kind === 'answer') {
      this.#slots.push({ kind: 'replace', reply: decision.reply });
      return STAND_IN;
    }
    if (!this.#requestsRaw) this.#slots.push(this.#track(command));
    return request.raw;
  }

  /** Follows what changes how replies pair with commands and whom the connection acts for. */
  #track(command: Command): Slot {
    const { name, args } = command;
    if (LEAVES_REQUEST_REPLY.has(name)) {
      this.#held = [];
      return { kind: 'leave' };
    }
    if (
      name === 'client' &&
      command.subcommand === 'reply' &&
      args[2]?.toString('latin1').toLowerCase() !== 'on'
    ) {
      this.#requestsRaw = true;
      return { kind: 'raw' };
    }
    const user = authenticatedAs(name, args);
    if (user !== undefined) {
      const previous = this.#user;
      this.#user = user;
      // A refused AUTH leaves the connection as it was.
      return {
        kind: 'pass',
        onReply: (frame) => {
          if (frame.raw[0] === 0x2d /* '-' */ && this.#user === user) this.#user = previous;
        },
      };
    }
    if (name === 'multi') this.#inMulti = true;
    if (name === 'exec' || name === 'discard') this.#inMulti = false;
    if (name === 'reset') {
      this.#user = 'default';
      this.#inMulti = false;
    }
    return { kind: 'pass' };
  }

  #fromServer(chunk: Buffer): void {
    if (this.#repliesRaw) {
      send(this.#client, this.#upstream, chunk);
      return;
    }
    const out: Buffer[] = [];
    let released: Request[] | undefined;
    try {
      this.#replies.push(chunk);
      for (let frame = this.#replies.next(); frame !== undefined; frame = this.#replies.next()) {
        if (frame.push) {
          out.push(frame.raw);
          continue;
        }
        const slot = this.#slots.shift();
        if (slot?.kind === 'replace') {
          out.push(slot.reply);
          continue;
        }
        out.push(frame.raw);
        if (slot?.kind === 'pass') slot.onReply?.(frame);
        if (slot?.kind === 'leave') {
          released = this.#held ?? [];
          this.#held = undefined;
          // Refused (unknown, NOPERM): still request-reply, the held commands are handled as usual.
          if (frame.raw[0] === 0x2d /* '-' */) break;
          this.#requestsRaw = true;
        }
        if (slot?.kind === 'raw' || slot?.kind === 'leave') {
          this.#repliesRaw = true;
          out.push(this.#replies.rest());
          break;
        }
      }
    } catch {
      this.#client.destroy();
      return;
    }
    if (out.length > 0) send(this.#client, this.#upstream, Buffer.concat(out));
    if (released !== undefined) {
      this.#process(released);
      // Replies that came with the refusal's are framed now that their commands are handled.
      if (!this.#repliesRaw) this.#fromServer(Buffer.alloc(0));
    }
  }
}

/** The user AUTH or HELLO ... AUTH switches to, if the command is one of those. */
function authenticatedAs(name: string, args: readonly Buffer[]): string | undefined {
  if (name === 'auth') return args.length >= 3 ? args[1]?.toString('utf8') : 'default';
  if (name !== 'hello') return undefined;
  const at = args.findIndex(
    (arg, index) => index >= 2 && arg.toString('latin1').toLowerCase() === 'auth',
  );
  return at === -1 ? undefined : args[at + 1]?.toString('utf8');
}

const draining = new WeakSet<Socket>();

/** Writes to `to`; pauses `from` until `to` drains (the two directions keep each other's pace). */
function send(to: Socket, from: Socket, data: Buffer): void {
  if (to.destroyed) return;
  if (to.write(data) || draining.has(to)) return;
  draining.add(to);
  from.pause();
  to.once('drain', () => {
    draining.delete(to);
    from.resume();
  });
}
