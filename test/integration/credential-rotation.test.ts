// A password rotated under a warm HTTP function whose credentials come from a secret, on a
// standalone server and on a cluster
// (EMQ_SECRET_ARN, read from a Secrets Manager stand-in through the SDK's own endpoint
// setting): the user's password replaced, the function's connections dropped. While the secret
// still holds the old password every answer is 503 + Retry-After, never 500, and nothing is
// written; once the secret holds the new one, the producer client's requests (503s retried
// with the same key, as it does) admit every job exactly once, with no 500 at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeNameOf } from '../../src/connection/transport.js';
import type { Connection } from '../../src/index.js';
import { slotOf } from '../../src/keyspace/keyspace.js';
import { aclArgs, aclDir, FUNCTIONS_USER, KINDS, PASSWORD } from '../security/acl-setup.js';
import { recordingClient } from '../support/client-fronts.js';
import { connectTo, jobsOf } from '../support/emq.js';
import { installFenceEverywhere } from '../support/fence-ready.js';
import { type RunningHttpFace, startHttpFace } from '../support/functions.js';
import { type SecretsManagerStandIn, startSecretsManager } from '../support/secrets-manager.js';
import {
  type ClusterHandle,
  randomQueue,
  type ServerHandle,
  startCluster,
  startStandalone,
} from '../support/servers.js';
import { waitFor } from '../support/wait.js';

const KIND = KINDS[0] as (typeof KINDS)[number];

describe.each(['standalone', 'cluster'] as const)('on a %s server', (topology) => {
  let dir: { dir: string; remove: () => Promise<void> };
  let target: ServerHandle | ClusterHandle;
  let reader: Connection;
  let secrets: SecretsManagerStandIn;
  let face: RunningHttpFace;

  beforeAll(async () => {
    dir = await aclDir();
    const extraArgs = await aclArgs(dir.dir, KIND);
    target =
      topology === 'cluster'
        ? await startCluster({ extraArgs })
        : await startStandalone({ extraArgs });
    await installFenceEverywhere(target);
    reader = await connectTo(target);
    secrets = await startSecretsManager({ username: FUNCTIONS_USER, password: PASSWORD });
    face = await startHttpFace(target, {
      env: { ...secrets.environment, EMQ_SECRET_ARN: secrets.arn, EMQ_CONNECT_TIMEOUT_MS: '2000' },
    });
  }, 180_000);

  afterAll(async () => {
    await face?.stop();
    await secrets?.close();
    await target?.stop();
    await dir?.remove();
  });

  /** On `node`: `command`, as the harness's own user. */
  async function onNode(node: ServerHandle, ...command: string[]): Promise<void> {
    const admin = await node.client();
    try {
      await admin.call(command[0] as string, ...command.slice(1));
    } finally {
      admin.disconnect();
    }
  }

  /** On every node: `command`. */
  async function everyNode(...command: string[]): Promise<void> {
    for (const node of target.kind === 'cluster' ? target.nodes : [target]) {
      await onNode(node, ...command);
    }
  }

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

  /** The nodes whose connections of the function's user drop: all, or the queue's only. */
  const DROPS = topology === 'cluster' ? ['every node', "the queue's node"] : ['every node'];
  let rotations = 0;

  /** The node (its `host:port`) whose primary serves `queue`'s slot, as the reader's map says. */
  function ownerOf(queue: string): ServerHandle {
    const nodes = target.kind === 'cluster' ? target.nodes : [target];
    const owner = nodeNameOf(reader.client, slotOf(`{${queue}}`));
    const found = nodes.find((node) => `${node.host}:${node.port}` === owner);
    if (found === undefined) throw new Error(`no node named ${owner}`);
    return found;
  }

  it.each(DROPS)(
    'rides out a rotation with the connections of %s dropped: 503 while the secret is stale, then every job once, no 500',
    async (drop) => {
      const queue = randomQueue('rotation');
      rotations += 1;
      const NEW_PASSWORD = `${PASSWORD}-rotated-${rotations}`;
      const { client, statuses } = recordingClient(face.url, {
        retry: { attempts: 40, baseDelayMs: 50, maxDelayMs: 250 },
      });
      await client.enqueue(queue, 'warm', { idempotencyKey: 'warm' });

      // The password changes, and the function's connections drop (a failover or a node
      // replacement does that): its reconnect is refused, the secret still holds the old password.
      await everyNode('ACL', 'SETUSER', FUNCTIONS_USER, 'resetpass', `>${NEW_PASSWORD}`);
      if (drop === 'every node') await everyNode('CLIENT', 'KILL', 'USER', FUNCTIONS_USER);
      else await onNode(ownerOf(queue), 'CLIENT', 'KILL', 'USER', FUNCTIONS_USER);
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
    },
  );
});
