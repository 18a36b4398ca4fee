/**
 * A bare RESP connection to a target's proxy, for tests that must see exact replies: several
 * commands written at once (pipelined), replies read back raw and in order, and commands no
 * client library should be trusted with (MONITOR, PSUBSCRIBE, SHUTDOWN) sent as plain bytes.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { ReplyFramer } from './resp-replies.js';

export interface RawSession {
  /** Writes every command in one write; resolves with one reply per command, raw, in order. */
  send(...commands: ReadonlyArray<readonly (string | Buffer)[]>): Promise<string[]>;
  close(): void;
}

const REPLY_TIMEOUT_MS = 10_000;

export function encode(args: readonly (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = typeof arg === 'string' ? Buffer.from(arg) : arg;
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

/** Opens a session to 127.0.0.1:`port` (TLS trusting `ca` when given), authenticated if asked. */
export async function rawSession(
  port: number,
  options: { readonly ca?: Buffer; readonly user?: string; readonly password?: string } = {},
): Promise<RawSession> {
  const socket: Socket =
    options.ca === undefined
      ? connectTcp({ host: '127.0.0.1', port })
      : connectTls({ host: '127.0.0.1', port, ca: options.ca });
  await new Promise<void>((resolve, reject) => {
    socket.once(options.ca === undefined ? 'connect' : 'secureConnect', () => resolve());
    socket.once('error', reject);
  });
  const framer = new ReplyFramer();
  const waiting: Array<(reply: string) => void> = [];
  socket.on('data', (chunk: Buffer) => {
    framer.push(chunk);
    for (let frame = framer.next(); frame !== undefined; frame = framer.next()) {
      waiting.shift()?.(frame.raw.toString('utf8'));
    }
  });
  const closed = new Promise<never>((_, reject) => {
    socket.once('close', () => reject(new Error('the connection closed')));
    socket.on('error', () => {});
  });
  closed.catch(() => {});
  const session: RawSession = {
    async send(...commands) {
      const replies = commands.map(() => new Promise<string>((resolve) => waiting.push(resolve)));
      socket.write(Buffer.concat(commands.map(encode)));
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no reply in time')), REPLY_TIMEOUT_MS);
      });
      try {
        return await Promise.race([Promise.all(replies), closed, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => socket.destroy(),
  };
  if (options.user !== undefined) {
    const [reply] = await session.send(['AUTH', options.user, options.password ?? '']);
    if (reply !== '+OK\r\n') {
      session.close();
      throw new Error(`AUTH as ${options.user} answered ${reply}`);
    }
  }
  return session;
}
