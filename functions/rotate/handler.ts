/**
 * Lambda entry point of the password rotation of a cache the construct creates: Secrets
 * Manager invokes it for each of the four steps. `ROTATED_SERVICE` names the cache
 * service (`nodes`: a self-managed cluster's, reached with the EMQ_* settings as the admin
 * user of EMQ_SECRET_ARN) and `ROTATED_USERS` the user of each secret it rotates
 * (`[{secretArn, userId}]`), both set by the construct (infra/constructs/credential-rotation.ts).
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { loadConfig } from '../../src/settings/config.js';
import { openCredentials } from '../shared/open-credentials.js';
import { nodePasswords } from './node-passwords.js';
import { type RotationEvent, rotate, type UserPasswords } from './rotation.js';
import { loadServiceSdk, userPasswords } from './user-passwords.js';

/** How long testSecret waits for the service to apply the change: under the 5-minute timeout. */
const SETTLE_MS = 240_000;

let ready: Promise<Parameters<typeof rotate>[1]> | undefined;

export const handler = async (event: RotationEvent): Promise<void> => {
  // A failed start (a missing SDK module, a bad variable) is tried again on the next event.
  ready ??= dependencies().catch((error: unknown) => {
    ready = undefined;
    throw error;
  });
  await rotate(event, await ready);
};

async function dependencies(): Promise<Parameters<typeof rotate>[1]> {
  const service = process.env.ROTATED_SERVICE;
  if (service !== 'elasticache' && service !== 'memorydb' && service !== 'nodes') {
    throw new Error('ROTATED_SERVICE must be elasticache, memorydb or nodes.');
  }
  const secrets = new SecretsManagerClient({});
  const users = new Map(
    (JSON.parse(process.env.ROTATED_USERS ?? '[]') as { secretArn: string; userId: string }[]).map(
      ({ secretArn, userId }) => [secretArn, userId],
    ),
  );
  return {
    secrets,
    users:
      service === 'nodes'
        ? nodesOf(secrets)
        : userPasswords(service, await loadServiceSdk(service)),
    userOf: (secretArn) => users.get(secretArn),
    pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    settleMs: SETTLE_MS,
  };
}

/** A self-managed cluster's nodes, reached as the admin user whose secret EMQ_SECRET_ARN names. */
function nodesOf(secrets: SecretsManagerClient): UserPasswords {
  const config = loadConfig(process.env);
  return nodePasswords({
    config,
    admin: async () => {
      const { username, password } = await openCredentials(config, secrets);
      return { username, password };
    },
  });
}
