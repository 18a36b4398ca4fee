// A password rotated under a warm HTTP function whose credentials come from a secret
// (EMQ_SECRET_ARN, read from a Secrets Manager stand-in through the SDK's own endpoint
// setting): the user's password replaced, the function's connections dropped. While the secret
// still holds the old password every answer is 503 + Retry-After, never 500, and nothing is
// written; once the secret holds the new one, the producer client's requests (503s retried
// with the same key, as it does) admit every job exactly once, with no 500 at all.
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Connection } from '../../src/index.js';
import { aclArgs, aclDir, FUNCTIONS_USER, KINDS, PASSWORD } from '../security/acl-setup.js';
import { recordingClient } from '../support/client-fronts.js';
import { connectTo, jobsOf } from '../support/emq.js';
import { installFenceEverywhere } from '../support/fence-ready.js';
import { type RunningHttpFace, startHttpFace } from '../support/functions.js';
import { type SecretsManagerStandIn, startSecretsManager } from '../support/secrets-manager.js';
import { randomQueue, type ServerHandle, startStandalone } from '../support/servers.js';
import { waitFor } from '../support/wait.js';

const KIND = KINDS[0] as (typeof KINDS)[number];
const NEW_PASSWORD = `${PASSWORD}-rotated`;

let dir: { dir: string; remove: () => Promise<void> };
let server: ServerHandle;
let admin: Valkey;
let reader: Connection;
let secrets: SecretsManagerStandIn;
let face: RunningHttpFace;

beforeAll(async () => {
  dir = await aclDir();
  server = await startStandalone({ extraArgs: await aclArgs(dir.dir, KIND) });
  await installFenceEverywhere(server);
  admin = await server.client();
  reader = await connectTo(server);
  secrets = await startSecretsManager({ username: FUNCTIONS_USER, password: PASSWORD });
  face = await startHttpFace(server, {
    env: {
      ...secrets.environment,
      EMQ_SECRET_ARN: secrets.arn,
      EMQ_CONNECT_TIMEOUT_MS: '2000',
    },
  });
}, 180_000);

afterAll(async () => {
  await face?.stop();
  await secrets?.close();
  admin?.disconnect();
  await server?.stop();
  await dir?.remove();
});

/** One keyed POST, without retries: its status, Retry-After and problem code. */
async function post(queue: string, key: string, payload: string) {
  const response = await fetch(`${face.url}/queues/${queue}/jobs`, {
    method: 'POST',
    body: payload,
    headers: { 'idempotency-key': key },
  });
  const body = (await response.json()) as { code?: string };
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after') !== null,
    code: body.code,
  };
}

it('rides out a rotation: 503 while the secret is stale, then every job once, no 500', async () => {
  const queue = randomQueue('rotation');
  const { client, statuses } = recordingClient(face.url, {
    retry: { attempts: 40, baseDelayMs: 50, maxDelayMs: 250 },
  });
  await client.enqueue(queue, 'warm', { idempotencyKey: 'warm' });

  // The password changes, and the function's connections drop (a failover or a node
  // replacement does that): its reconnect is refused, the secret still holds the old password.
  await admin.call('ACL', 'SETUSER', FUNCTIONS_USER, 'resetpass', `>${NEW_PASSWORD}`);
  await admin.call('CLIENT', 'KILL', 'USER', FUNCTIONS_USER);
  const readsBefore = secrets.reads();
  const stale: Awaited<ReturnType<typeof post>>[] = [];
  await waitFor('the function to read the secret again', 30_000, async () => {
    stale.push(await post(queue, `stale-${stale.length}`, 'while stale'));
    return secrets.reads() > readsBefore ? undefined : `${secrets.reads()} reads`;
  });
  expect(stale).toEqual(
    stale.map(() => ({ status: 503, retryAfter: true, code: 'EMQ_UNAVAILABLE' })),
  );
  expect((await jobsOf(reader, queue)).rows).toHaveLength(1);

  // The rotation completes: the secret holds the new password.
  secrets.put({ username: FUNCTIONS_USER, password: NEW_PASSWORD });
  const ids = new Set<string>();
  for (let at = 0; at < 20; at++) {
    const admitted = await client.enqueue(queue, `job ${at}`, { idempotencyKey: `job-${at}` });
    ids.add(admitted.id);
  }
  // The stale window's requests, sent again with their keys as a client would: admitted now.
  for (let at = 0; at < stale.length; at++) {
    ids.add((await client.enqueue(queue, 'while stale', { idempotencyKey: `stale-${at}` })).id);
  }
  expect(statuses.filter((status) => status === 500)).toEqual([]);
  const { rows, pending } = await jobsOf(reader, queue);
  expect(ids.size).toBe(20 + stale.length);
  expect(rows).toHaveLength(1 + ids.size);
  expect(pending).toHaveLength(1 + ids.size);
  for (const id of ids) expect(rows).toContain(id);
});
