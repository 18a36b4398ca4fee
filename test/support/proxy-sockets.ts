/**
 * What the harness's TCP proxies share: a client socket and its upstream live and die
 * together, and the proxy listens on a free loopback port.
 */
import type { Server, Socket } from 'node:net';
import { LOOPBACK } from './ports.js';

/** Tracks the pair in `sockets` and closes both when either closes or fails. */
export function pairSockets(client: Socket, upstream: Socket, sockets: Set<Socket>): void {
  sockets.add(client);
  sockets.add(upstream);
  const end = () => {
    client.destroy();
    upstream.destroy();
    sockets.delete(client);
    sockets.delete(upstream);
  };
  client.on('close', end);
  upstream.on('close', end);
  client.on('error', end);
  upstream.on('error', end);
}

/** Listens on a free loopback port; resolves with it. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  return address.port;
}
