import { LOOPBACK } from './ports.js';
import { infoField } from './probe.js';
import type { ValkeyServer } from './server.js';
import { launchSpec, replicationAuth } from './server-args.js';
import { startAll } from './start-all.js';
import type { ReplicatedHandle, ReplicatedOptions } from './types.js';
import { waitFor } from './wait.js';

const DEFAULT_SYNC_TIMEOUT_MS = 15_000;

class Replicated implements ReplicatedHandle {
  readonly kind = 'replicated';
  readonly primary: ValkeyServer;
  readonly replicas: readonly ValkeyServer[];
  readonly nodes: readonly ValkeyServer[];

  constructor(primary: ValkeyServer, replicas: readonly ValkeyServer[]) {
    this.primary = primary;
    this.replicas = replicas;
    this.nodes = [primary, ...replicas];
  }

  /** Resolves once every running replica has a live link to the primary. */
  waitForSync(timeoutMs = DEFAULT_SYNC_TIMEOUT_MS): Promise<void> {
    return waitFor('replicas to link to their primary', timeoutMs, async () => {
      for (const replica of this.replicas.filter((node) => node.running)) {
        const info = await replica.probe((connection) => connection.info('replication'));
        const link = infoField(info, 'master_link_status');
        if (link !== 'up') return `${replica.url} master_link_status:${link}`;
      }
      return undefined;
    });
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.stop()));
  }
}

/** One primary and `replicas` (default 1) replicas, returned once every replica is in sync. */
export async function startReplicated(options: ReplicatedOptions = {}): Promise<ReplicatedHandle> {
  const [primary] = await startAll([launchSpec(options)]);
  if (primary === undefined) throw new Error('startAll returned no primary');
  const follow = () => [
    '--replicaof',
    LOOPBACK,
    String(primary.port),
    ...replicationAuth(options.auth),
  ];
  const replicaSpecs = Array.from({ length: options.replicas ?? 1 }, () =>
    launchSpec(options, follow),
  );
  let replicas: ValkeyServer[];
  try {
    replicas = await startAll(replicaSpecs);
  } catch (error) {
    await primary.stop();
    throw error;
  }
  const handle = new Replicated(primary, replicas);
  try {
    await handle.waitForSync(options.syncTimeoutMs);
  } catch (error) {
    await handle.stop();
    throw error;
  }
  return handle;
}
