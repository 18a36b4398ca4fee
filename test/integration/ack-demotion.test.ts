// A WAIT cut short by its primary's demotion (a failover hands the node over while the
// admission waits for its replica): the writes are on a node that no longer is a primary and
// no replica confirmed them, so the answer is EMQ_UNCONFIRMED (retryable, naming the job),
// never a 500. The server answers such a WAIT with UNBLOCKED; one that reaches the node after
// the demotion is refused with "WAIT cannot be used with replica instances".
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { install } from '../../src/connection/fence.js';
import { enqueue, UnconfirmedError } from '../../src/index.js';
import { connectTo } from '../support/emq.js';
import { type ReplicatedHandle, randomQueue, startReplicated } from '../support/servers.js';
import { waitFor } from '../support/wait.js';

let pair: ReplicatedHandle;

// A fresh pair per test: the primary ends each test as a replica of a stopped server.
beforeEach(async () => {
  pair = await startReplicated({ module: true, replicas: 1 });
  await install(await connectTo(pair.primary, { checkFence: false }));
  await pair.waitForSync();
});

afterEach(() => pair.stop());

describe.each(['native', 'function'] as const)('with the %s family', (family) => {
  it('answers EMQ_UNCONFIRMED, naming the job, when the primary is demoted during its WAIT', async () => {
    const replica = pair.replicas[0];
    if (replica === undefined) throw new Error('no replica');
    // A WAIT that can only end by the demotion: the replica is stopped, the budget long.
    const conn = await connectTo(pair.primary, {
      family,
      ackReplicas: 1,
      ackTimeoutMs: 50_000,
      commandTimeoutMs: 55_000,
    });
    const admin = await pair.primary.client();
    await replica.kill('SIGSTOP');
    try {
      const answer = enqueue(conn, {
        queue: randomQueue('demoted'),
        payload: 'p',
        idempotencyKey: 'k',
      }).catch((error: unknown) => error);
      await waitFor('the admission to block in WAIT', 30_000, async () => {
        const info = await admin.info('clients');
        return /^blocked_clients:[1-9]/m.test(info) ? undefined : 'no blocked client yet';
      });
      await admin.call('REPLICAOF', replica.host, String(replica.port));
      const failure = await answer;
      expect(failure).toBeInstanceOf(UnconfirmedError);
      expect(failure).toMatchObject({ code: 'EMQ_UNCONFIRMED', retryable: true, written: 'yes' });
      expect((failure as UnconfirmedError).jobId).toMatch(/^JOB/);
    } finally {
      admin.disconnect();
      await replica.kill('SIGCONT');
    }
  });
});
