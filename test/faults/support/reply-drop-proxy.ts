/**
 * A TCP proxy in front of one valkey-server that can lose a reply: once armed, the first
 * client write that matches is forwarded and executed, but its reply is dropped and the
 * client's connection closed, as a network fault after the server ran the command would.
 * A client library that resends the command after reconnecting then runs it twice.
 */
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { LOOPBACK } from '../../support/ports.js';
import { listenOnLoopback, pairSockets } from '../../support/proxy-sockets.js';

export interface ReplyDropProxy {
  readonly port: number;
  readonly url: string;
  /** Drops the reply to the next client write whose bytes contain `marker`. */
  dropReplyTo(marker: string): void;
  /** How many replies were dropped so far. */
  dropped(): number;
  /** True while connections are refused after a drop (DropTrigger.refuseMs). */
  refusing(): boolean;
  close(): Promise<void>;
}

/** What proxies in front of one cluster share: one armed drop for all of them. */
export interface DropTrigger {
  marker: string | undefined;
  /** After the drop, refuse connections (stop listening) this long, as a node that is down. Default: none. */
  refuseMs?: number | undefined;
}

export async function startReplyDropProxy(
  upstreamPort: number,
  trigger: DropTrigger = { marker: undefined },
): Promise<ReplyDropProxy> {
  let dropped = 0;
  let port = 0;
  let reopen: NodeJS.Timeout | undefined;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = tcpConnect(upstreamPort, LOOPBACK);
    pairSockets(client, upstream, sockets);
    let doomed = false;
    let refuseMs: number | undefined;
    client.on('data', (bytes) => {
      if (trigger.marker !== undefined && bytes.includes(trigger.marker)) {
        trigger.marker = undefined;
        refuseMs = trigger.refuseMs;
        doomed = true;
      }
      upstream.write(bytes);
    });
    upstream.on('data', (bytes) => {
      if (!doomed) {
        client.write(bytes);
        return;
      }
      // The server answered: the command ran. Its reply is lost with the connection.
      dropped += 1;
      if (refuseMs !== undefined && reopen === undefined) {
        // Not listening: a reconnect is refused (ECONNREFUSED) until the port listens again.
        server.close();
        reopen = setTimeout(() => {
          reopen = undefined;
          server.listen(port, LOOPBACK);
        }, refuseMs);
      }
      client.destroy();
    });
  });
  port = await listenOnLoopback(server);
  return {
    port: port,
    url: `redis://${LOOPBACK}:${port}`,
    dropReplyTo: (text) => {
      trigger.marker = text;
    },
    dropped: () => dropped,
    refusing: () => reopen !== undefined,
    close: async () => {
      clearTimeout(reopen);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
