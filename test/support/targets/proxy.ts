/**
 * TEST HARNESS ONLY: the proxy in front of each node of a target (start-target.ts). Clients
 * reach a node only through it: the node announces the proxy's port (cluster-announce-port
 * and cluster-announce-tls-port, which 8.0.1 and 9.1.2 both have), so CLUSTER SLOTS, SHARDS,
 * NODES and MOVED send every client back through a proxy. The proxy terminates TLS where the
 * profile requires it, applies the profile's rules (proxy-rules.ts), records every command
 * (command-log.ts) and talks to the node over its unix socket, which only the harness knows.
 *
 * Replicas sync through it too (they connect to the announced port); they authenticate as the
 * harness's user, which the rules exempt and the assertion leaves out.
 */
import { connect, createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { listenOnLoopback, pairSockets } from '../proxy-sockets.js';
import { type Tracked, track, untrack } from '../registry.js';
import type { CommandLog } from './command-log.js';
import { ProxyConnection } from './proxy-connection.js';
import type { ProxyRules } from './proxy-rules.js';

export interface ProxyOptions {
  /** The node's unix socket (asked at each connection: the node may start after the proxy). */
  readonly upstream: () => string;
  /** PEM certificate and key to terminate TLS with; plain TCP without. */
  readonly tls: { readonly cert: Buffer; readonly key: Buffer } | undefined;
  readonly rules: ProxyRules;
  readonly log: CommandLog;
  readonly containers: ReadonlySet<string>;
}

export class TargetProxy implements Tracked {
  readonly port: number;
  readonly #server: Server;
  readonly #sockets: Set<Socket>;
  #stopped = false;

  private constructor(server: Server, port: number, sockets: Set<Socket>) {
    this.#server = server;
    this.port = port;
    this.#sockets = sockets;
  }

  static async start(options: ProxyOptions): Promise<TargetProxy> {
    const sockets = new Set<Socket>();
    const accept = (client: Socket): void => {
      const upstream = connect({ path: options.upstream() });
      pairSockets(client, upstream, sockets);
      new ProxyConnection(client, upstream, {
        rules: options.rules,
        log: options.log,
        containers: options.containers,
      });
    };
    const server =
      options.tls === undefined
        ? createTcpServer(accept)
        : createTlsServer({ cert: options.tls.cert, key: options.tls.key }, accept);
    // A client that fails its TLS handshake (a plain-text one, say) is simply dropped.
    server.on('tlsClientError', (_error: Error, socket: Socket) => socket.destroy());
    const proxy = new TargetProxy(server, await listenOnLoopback(server), sockets);
    track(proxy);
    return proxy;
  }

  /** Sockets open right now (each connection counts its client and its upstream socket). */
  get openSockets(): number {
    return this.#sockets.size;
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    untrack(this);
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  killNow(): void {
    for (const socket of this.#sockets) socket.destroy();
    this.#server.close();
  }
}
