import type { Valkey } from 'iovalkey';
import { stringReply } from './probe.js';
import type { ClusterHandle, ServerHandle } from './types.js';

async function digestOfNode(node: ServerHandle): Promise<string> {
  const client: Valkey = await node.client();
  try {
    return await stringReply(client.call('DEBUG', 'DIGEST'));
  } finally {
    client.disconnect();
  }
}

/**
 * DEBUG DIGEST of a server, or of every current primary of a cluster keyed by its url:
 * equal digests before and after mean the dataset is byte-for-byte unchanged.
 */
export function digestOf(handle: ServerHandle): Promise<string>;
export function digestOf(handle: ClusterHandle): Promise<Map<string, string>>;
export async function digestOf(
  handle: ServerHandle | ClusterHandle,
): Promise<string | Map<string, string>> {
  if (handle.kind === 'server') return digestOfNode(handle);
  const primaries = await handle.primaries();
  const digests = await Promise.all(
    primaries.map(async (node) => [node.url, await digestOfNode(node)] as const),
  );
  return new Map(digests);
}
