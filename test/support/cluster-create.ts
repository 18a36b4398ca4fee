import { runValkeyCli } from '../../scripts/valkey/cli.js';
import type { ValkeyServer } from './server.js';
import type { Auth } from './types.js';

const CREATE_TIMEOUT_MS = 60_000;

function cliAuth(auth: Auth | undefined): string[] {
  if (auth === undefined) return [];
  const user = auth.username === undefined ? [] : ['--user', auth.username];
  return [...user, '--pass', auth.password, '--no-auth-warning'];
}

/** valkey-cli makes the first nodes primaries, splits the slots and attaches the replicas. */
export async function createCluster(
  nodes: readonly ValkeyServer[],
  replicasPerPrimary: number,
  auth: Auth | undefined,
): Promise<void> {
  await runValkeyCli(
    [
      '--cluster',
      'create',
      ...nodes.map((node) => `${node.host}:${node.port}`),
      '--cluster-replicas',
      String(replicasPerPrimary),
      '--cluster-yes',
      ...cliAuth(auth),
    ],
    CREATE_TIMEOUT_MS,
  );
}
