import type { Cluster, Valkey } from 'iovalkey';

/**
 * The clients a handle gave out, so stop() can disconnect whatever a test left open. A client
 * that fails to connect is disconnected at once (iovalkey would keep retrying it).
 */
export class ClientSet<C extends Valkey | Cluster> {
  readonly #clients = new Set<C>();

  async connect(client: C): Promise<C> {
    this.#clients.add(client);
    client.once('end', () => this.#clients.delete(client));
    try {
      await client.connect();
    } catch (error) {
      client.disconnect();
      throw error;
    }
    return client;
  }

  disconnectAll(): void {
    for (const client of this.#clients) client.disconnect();
    this.#clients.clear();
  }
}
