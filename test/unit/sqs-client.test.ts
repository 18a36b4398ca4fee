import { describe, expect, it } from 'vitest';
import { createSqsClient } from '../../functions/sqs/sqs-client.js';

describe('createSqsClient', () => {
  it('sends to an endpoint set in the environment rather than the queue URL host', async () => {
    const client = await createSqsClient({ AWS_ENDPOINT_URL_SQS: 'http://127.0.0.1:4566' });
    expect(client.config.useQueueUrlAsEndpoint).toBe(false);
    client.destroy();
  });

  it('honours the generic AWS_ENDPOINT_URL too', async () => {
    const client = await createSqsClient({ AWS_ENDPOINT_URL: 'http://127.0.0.1:4566' });
    expect(client.config.useQueueUrlAsEndpoint).toBe(false);
    client.destroy();
  });

  it("keeps the SDK's default, the queue URL host, without a configured endpoint", async () => {
    for (const env of [
      {},
      { AWS_ENDPOINT_URL_SQS: 'http://x', AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true' },
    ]) {
      const client = await createSqsClient(env);
      expect(client.config.useQueueUrlAsEndpoint).toBe(true);
      client.destroy();
    }
  });
});
