// A credentials-store outage at cold start is retryable (503), not a 500:
// the real SDK client, pointed at a port nothing listens on, fails as an outage would.
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import {
  REREAD_INTERVAL_MS,
  readCredentials,
  SecretCredentials,
} from '../../functions/shared/secrets.js';
import { UnavailableError } from '../../src/index.js';
import { freePort } from '../support/ports.js';
import { startSecretsManager } from '../support/secrets-manager.js';

describe('readCredentials', () => {
  it('classifies an unreachable Secrets Manager as retryable EMQ_UNAVAILABLE', async () => {
    const port = await freePort();
    const client = new SecretsManagerClient({
      endpoint: `http://127.0.0.1:${port}`,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
      maxAttempts: 1,
    });
    const failure = await readCredentials(
      'arn:aws:secretsmanager:eu-west-1:123456789012:secret:emq',
      client,
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UnavailableError);
    expect(failure).toMatchObject({ code: 'EMQ_UNAVAILABLE', retryable: true, status: 503 });
    expect((failure as Error).message).not.toContain(String(port));
  });
});

describe('SecretCredentials', () => {
  it('reads the secret once, and again after a refusal only when a second has passed', async () => {
    const secrets = await startSecretsManager({ username: 'app', password: 'one' });
    const client = new SecretsManagerClient({
      endpoint: secrets.environment.AWS_ENDPOINT_URL_SECRETS_MANAGER,
      region: secrets.environment.AWS_REGION,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    let now = 0;
    const credentials = new SecretCredentials(secrets.arn, () => now, client);
    try {
      const first = await credentials.get();
      expect(first).toEqual({ username: 'app', password: 'one' });
      expect(await credentials.get()).toBe(first);
      secrets.put({ username: 'app', password: 'two' });
      // Not refused: the value read stays, however old.
      now = 60_000;
      expect(await credentials.get()).toBe(first);
      // Refused: read again, but not within a second of the last read.
      credentials.refused(first);
      const second = await credentials.get();
      expect(second).toEqual({ username: 'app', password: 'two' });
      secrets.put({ username: 'app', password: 'three' });
      credentials.refused(second);
      now += REREAD_INTERVAL_MS - 1;
      expect(await credentials.get()).toBe(second);
      now += 1;
      expect(await credentials.get()).toEqual({ username: 'app', password: 'three' });
      // A refusal of credentials older than the last read changes nothing.
      credentials.refused(second);
      now += 10 * REREAD_INTERVAL_MS;
      expect((await credentials.get()).password).toBe('three');
      expect(secrets.reads()).toBe(3);
    } finally {
      client.destroy();
      await secrets.close();
    }
  });
});
