import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { ValkeyServer } from './server.js';
import type { Auth } from './types.js';

const run = promisify(execFile);
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
  const args = [
    '--cluster',
    'create',
    ...nodes.map((node) => `${node.host}:${node.port}`),
    '--cluster-replicas',
    String(replicasPerPrimary),
    '--cluster-yes',
    ...cliAuth(auth),
  ];
  try {
    await run('valkey-cli', args, { timeout: CREATE_TIMEOUT_MS });
  } catch (error) {
    const output =
      error instanceof Error && 'stdout' in error
        ? `${error.stdout}\n${'stderr' in error ? error.stderr : ''}`
        : '';
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`valkey-cli ${args.join(' ')} failed: ${reason}\n${output}`);
  }
}
