// A credentials-store outage at cold start is retryable (503), not a 500 (issue 14, defect 6):
// the real SDK client, pointed at a port nothing listens on, fails as an outage would.
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import { readCredentials } from '../../functions/shared/secrets.js';
import { UnavailableError } from '../../src/index.js';
import { freePort } from '../support/ports.js';

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
