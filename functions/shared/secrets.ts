/**
 * Valkey credentials from AWS Secrets Manager, read once per container at cold start. The
 * secret is JSON `{"username": "...", "password": "..."}`; nothing of it is ever logged.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ConfigError, UnavailableError } from '../../src/outcomes/outcomes.js';

export interface Credentials {
  readonly username: string | undefined;
  readonly password: string;
}

export async function readCredentials(
  secretArn: string,
  client?: Pick<SecretsManagerClient, 'send'>,
): Promise<Credentials> {
  // The SDK loads only where a secret is configured, and then once, at cold start.
  const { GetSecretValueCommand, SecretsManagerClient } = await import(
    '@aws-sdk/client-secrets-manager'
  );
  const sender = client ?? new SecretsManagerClient({});
  let SecretString: string | undefined;
  try {
    ({ SecretString } = await sender.send(new GetSecretValueCommand({ SecretId: secretArn })));
  } catch (error) {
    // Throttling, a network fault, an outage: the next invocation can succeed (SPEC §7).
    throw new UnavailableError('The credentials store cannot be read right now; retry later.', {
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(SecretString ?? '');
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) throw malformed();
  const { username, password } = parsed as Record<string, unknown>;
  if (typeof password !== 'string' || (username !== undefined && typeof username !== 'string')) {
    throw malformed();
  }
  return { username, password };
}

function malformed(): ConfigError {
  return new ConfigError(
    'EMQ_SECRET_ARN names a secret that is not JSON {"username": "...", "password": "..."}.',
  );
}
