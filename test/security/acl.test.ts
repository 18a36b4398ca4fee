// Least privilege, as deployed, allowed: on each server kind (function family without the
// module, script family on a Serverless-like server, native family with the module),
// standalone and cluster, the users run under the rules read from the synthesized template
// (acl-setup.ts) and send the calls of docs/wire.md as raw commands (raw-calls.ts). The
// installer installs identity and library; the functions' user passes every connect-time
// read, admits every outcome of an admit call, unlinks a dead record slot, trips the fence, reads back, and confirms with WAIT where the family has it.
// What they are refused is acl-refusals.test.ts.
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIBRARY_SOURCE, LIBRARY_VERSION } from '../../src/families/library.js';
import {
  type ClusterHandle,
  type ReplicatedHandle,
  randomQueue,
  type ServerHandle,
  startCluster,
  startReplicated,
  startStandalone,
} from '../support/servers.js';
import {
  aclArgs,
  aclDir,
  FUNCTIONS_USER,
  INSTALLER_USER,
  KINDS,
  PASSWORD,
  type ServerKind,
} from './acl-setup.js';
import {
  admitCall,
  clientAs,
  command,
  enqueueCall,
  FENCE_KEY,
  jobId,
  keysOf,
  ownerOf,
  SCRIPT_SHA,
  SCRIPT_SOURCE,
  send,
  versionProbe,
  WIRE,
} from './raw-calls.js';

type Target = ServerHandle | ClusterHandle;
interface Setup {
  readonly standalone: ServerHandle;
  readonly cluster: ClusterHandle;
  /** A primary with a replica, where the family has WAIT. */
  readonly replicated: ReplicatedHandle | undefined;
}

/** What a refusal by the ACL, or a command the server lacks, answers. */
const REFUSED = /NOPERM|ACL failure|unknown command/i;

const setups = new Map<ServerKind, Setup>();
let removeDir: () => Promise<void>;

beforeAll(async () => {
  const { dir, remove } = await aclDir();
  removeDir = remove;
  for (const kind of KINDS) {
    const options = { module: kind.module, extraArgs: await aclArgs(dir, kind) };
    const [standalone, cluster, replicated] = await Promise.all([
      startStandalone(options),
      startCluster(options),
      kind.family === 'script' ? undefined : startReplicated({ ...options, replicas: 1 }),
    ]);
    setups.set(kind, { standalone, cluster, replicated });
  }
});

afterAll(async () => {
  await Promise.all(
    [...setups.values()].flatMap((s) => [
      s.standalone.stop(),
      s.cluster.stop(),
      s.replicated?.stop(),
    ]),
  );
  await removeDir?.();
});

async function primariesOf(target: Target): Promise<ServerHandle[]> {
  return target.kind === 'cluster' ? target.primaries() : [target];
}

async function as<T>(node: ServerHandle, user: string, use: (client: Valkey) => Promise<T>) {
  const client = await clientAs(node, user, PASSWORD);
  try {
    return await use(client);
  } finally {
    client.disconnect();
  }
}

/** Wipes keys and libraries as the harness, then installs as the deployed installer user. */
async function installAsInstaller(kind: ServerKind, target: Target): Promise<unknown[]> {
  const primaries = await primariesOf(target);
  for (const node of primaries) {
    const admin = await node.client();
    await admin.flushall();
    // Serverless-like servers have no FUNCTION: their library is the script cache.
    await admin.call(kind.family === 'script' ? 'SCRIPT' : 'FUNCTION', 'FLUSH');
    admin.disconnect();
  }
  const replies: unknown[] = [];
  for (const node of primaries) {
    replies.push(
      ...(await as(node, INSTALLER_USER, async (client) =>
        kind.family === 'script'
          ? [await send(client, ['SCRIPT', 'LOAD', SCRIPT_SOURCE])]
          : [
              ...(kind.family === 'native' ? [await send(client, ['EMQ.WIRE.INSTALL'])] : []),
              await send(client, ['FUNCTION', 'LOAD', 'REPLACE', LIBRARY_SOURCE]),
            ],
      )),
    );
  }
  if (kind.family !== 'native') {
    // Without the module a cluster keeps one copy of the identity, on its slot's owner.
    const owner = await ownerOf(primaries, FENCE_KEY);
    replies.push(
      await as(owner, INSTALLER_USER, (client) => send(client, ['SET', FENCE_KEY, WIRE])),
    );
  }
  return replies;
}

/** What a connection reads from every primary before it serves (or after an install). */
async function connectReads(kind: ServerKind, target: Target, user: string): Promise<unknown[]> {
  const primaries = await primariesOf(target);
  const replies: unknown[] = [];
  for (const node of primaries) {
    await as(node, user, async (client) => {
      const reads: string[][] = [
        ['INFO', 'memory'],
        // Only the native family asks which EMQ.ADMIT a node has (src/connection/fence.ts).
        ...(kind.family === 'native' ? [['COMMAND', 'INFO', 'EMQ.ADMIT']] : []),
        ['GET', FENCE_KEY],
        ...(target.kind === 'cluster' ? [] : [['INFO', 'cluster']]),
        ...(target.kind === 'cluster'
          ? [
              ['CLUSTER', 'SLOTS'],
              ['CLUSTER', 'INFO'],
              ['CLUSTER', 'MYID'],
            ]
          : []),
        versionProbe(kind.family),
        ...(kind.family === 'native' ? [['EMQ.WIRE']] : []),
      ];
      for (const read of reads) replies.push(await send(client, read));
    });
  }
  return replies;
}

/** The owner of a fresh queue's slot, and the queue. */
async function queueOn(
  target: Target,
  prefix: string,
): Promise<{ queue: string; node: ServerHandle }> {
  const queue = randomQueue(prefix);
  return { queue, node: await ownerOf(await primariesOf(target), keysOf(queue).pending) };
}

async function asHarness<T>(node: ServerHandle, use: (client: Valkey) => Promise<T>): Promise<T> {
  const client = await node.client();
  try {
    return await use(client);
  } finally {
    client.disconnect();
  }
}

/**
 * A test that only some families have (WAIT where there is WAIT): defined for those, absent,
 * not skipped, for the others.
 */
function when(applies: boolean): typeof it {
  return applies ? it : ((() => undefined) as unknown as typeof it);
}

describe.each(KINDS)('on an $name', (kind) => {
  const setup = (): Setup => setups.get(kind) as Setup;
  const library = kind.family !== 'native';
  const run = (node: ServerHandle, name: string, call: Parameters<typeof command>[2]) =>
    as(node, FUNCTIONS_USER, (client) => send(client, command(kind.family, name, call)));

  describe.each([
    ['standalone', (s: Setup): Target => s.standalone],
    ['cluster', (s: Setup): Target => s.cluster],
  ] as const)('%s', (_topology, targetOf) => {
    it('lets the installer install identity and library on every primary, and read like a connection', async () => {
      const target = targetOf(setup());
      const replies = await installAsInstaller(kind, target);
      for (const reply of replies) expect(String(reply)).not.toMatch(REFUSED);
      if (kind.family === 'script') expect(replies).toContain(SCRIPT_SHA);
      for (const reply of await connectReads(kind, target, INSTALLER_USER)) {
        expect(String(reply)).not.toMatch(REFUSED);
      }
    });

    it("lets the functions' user run every connect-time read on every primary", async () => {
      const target = targetOf(setup());
      const replies = await connectReads(kind, target, FUNCTIONS_USER);
      for (const reply of replies) expect(String(reply)).not.toMatch(REFUSED);
      // The library check answers the version where the library is installed (the script
      // family: SCRIPT EXISTS of the script whose text holds it).
      if (kind.family === 'script') expect(replies).toContainEqual([1]);
      else expect(replies).toContain(LIBRARY_VERSION);
    });

    when(library)(
      'admits every outcome of one admit call, then a duplicate (touch), a conflict and a caller id',
      async () => {
        const { queue, node } = await queueOn(targetOf(setup()), 'acl-v3');
        const k = keysOf(queue);
        const [a, b, c, d, e, f] = [jobId(), jobId(), jobId(), jobId(), jobId(), jobId()];
        // Another request's row under the id the third admission proposes.
        await asHarness(node, (client) =>
          client.hset(k.row(c), 'state', 'pending', 'attempts', '0', 'payload', 'three'),
        );
        const call = admitCall(queue, [
          { idSource: 'm', id: a, key: 'k1', payload: 'one' },
          { idSource: 'm', id: b, key: 'k1', payload: 'one' },
          { idSource: 'm', id: c, key: 'k2', payload: 'two' },
          { idSource: 'c', id: d, key: d, payload: 'four' },
        ]);
        expect(await run(node, 'admit', call)).toEqual([
          [1, a],
          [0, a],
          [2, c],
          [1, d],
        ]);
        // A replay alone writes only the touch of its record (HSET of the slot).
        expect(
          await run(
            node,
            'admit',
            admitCall(queue, [{ idSource: 'm', id: e, key: 'k1', payload: 'one' }]),
          ),
        ).toEqual([[0, a]]);
        expect(
          await run(
            node,
            'admit',
            admitCall(queue, [{ idSource: 'm', id: f, key: 'k1', payload: 'other' }]),
          ),
        ).toEqual([[-1, a]]);
        // A caller's id whose row exists without a record: the row's payload decides.
        expect(
          await run(
            node,
            'admit',
            admitCall(queue, [{ idSource: 'c', id: c, key: c, payload: 'three' }]),
          ),
        ).toEqual([[0, c]]);
        expect(
          await run(
            node,
            'admit',
            admitCall(queue, [{ idSource: 'c', id: c, key: c, payload: 'else' }]),
          ),
        ).toEqual([[-1, c]]);
        const rows = await asHarness(node, async (client) => ({
          a: await client.call('HGETALL', k.row(a)),
          pending: await client.zrange(k.pending, 0, -1),
        }));
        expect(rows.a).toEqual(['state', 'pending', 'attempts', '0', 'payload', 'one']);
        expect(rows.pending.sort()).toEqual([a, d].sort());
        // The seeds' call for other hosts.
        const g = jobId();
        expect(await run(node, 'enqueue', enqueueCall(queue, g, 'seven'))).toBe(1);
      },
    );

    when(library)('unlinks dead record slots as it writes', async () => {
      const { queue, node } = await queueOn(targetOf(setup()), 'acl-purge');
      const k = keysOf(queue);
      // Every slot holds only dead records (its latest expiry long past).
      await asHarness(node, async (client) => {
        for (const slot of k.slots) await client.hset(slot, '~', '1', 'junk', 'x');
      });
      const j = jobId();
      expect(
        await run(
          node,
          'admit',
          admitCall(queue, [{ idSource: 'm', id: j, key: 'k6', payload: 'six' }]),
        ),
      ).toEqual([[1, j]]);
      const junk = await asHarness(node, (client) =>
        Promise.all(k.slots.map((slot) => client.hexists(slot, 'junk'))),
      );
      // The slot written to and the one after the live ones were unlinked first.
      expect(junk.filter((held) => held === 1)).toHaveLength(2);
    });

    when(kind.family === 'native')(
      'admits through EMQ.ENQUEUE and EMQ.ADMIT on the queue keys',
      async () => {
        const { queue, node } = await queueOn(targetOf(setup()), 'acl-native');
        const [a, b] = [jobId(), jobId()];
        expect(await run(node, 'enqueue', enqueueCall(queue, a, 'one'))).toBe(1);
        const admitOf = (id: string) =>
          run(node, 'admit', admitCall(queue, [{ idSource: 'm', id, key: 'k1', payload: 'two' }]));
        expect(await admitOf(b)).toEqual([[1, b]]);
        expect(await admitOf(jobId())).toEqual([[0, b]]);
      },
    );

    it('reads back as readJob (emq get) and the pending listing (emq pending) do', async () => {
      const { queue, node } = await queueOn(targetOf(setup()), 'acl-read');
      const k = keysOf(queue);
      const id = jobId();
      expect(await run(node, 'enqueue', enqueueCall(queue, id, 'read me'))).toBe(1);
      const reads = await as(node, FUNCTIONS_USER, async (client) => [
        await send(client, ['HGETALL', k.row(id)]),
        await send(client, ['HGET', k.row(id), 'payload']),
        await send(client, ['ZCARD', k.pending]),
        await send(client, ['ZRANGE', k.pending, '0', '9']),
      ]);
      expect(reads).toEqual([
        ['state', 'pending', 'attempts', '0', 'payload', 'read me'],
        'read me',
        1,
        [id],
      ]);
    });
  });

  when(library)(
    'trips the fence on a standalone server: another identity, or one with a TTL (its GET and PTTL are granted)',
    async () => {
      const node = setup().standalone;
      const queue = randomQueue('acl-fence');
      const call = () => admitCall(queue, [{ idSource: 'm', id: jobId(), key: 'k', payload: 'p' }]);
      try {
        await asHarness(node, (client) => client.set(FENCE_KEY, 'other'));
        expect(await run(node, 'admit', call())).toMatch(
          /^EMQWIRE wire identity mismatch: node has other, host expects 1/,
        );
        await asHarness(node, (client) => client.set(FENCE_KEY, WIRE, 'PX', 60_000));
        expect(await run(node, 'admit', call())).toMatch(/^EMQWIRE .*has a TTL/);
      } finally {
        await asHarness(node, (client) => client.set(FENCE_KEY, WIRE));
      }
      expect(await asHarness(node, (client) => client.exists(keysOf(queue).pending))).toBe(0);
    },
  );

  when(kind.family === 'script')(
    "lets the functions' user load the script where a node's cache lacks it",
    async () => {
      const node = setup().standalone;
      await asHarness(node, (client) => client.call('SCRIPT', 'FLUSH'));
      const queue = randomQueue('acl-noscript');
      const call = admitCall(queue, [{ idSource: 'm', id: jobId(), key: 'k', payload: 'p' }]);
      expect(await run(node, 'admit', call)).toMatch(/^NOSCRIPT/);
      expect(
        await as(node, FUNCTIONS_USER, (client) => send(client, ['SCRIPT', 'LOAD', SCRIPT_SOURCE])),
      ).toBe(SCRIPT_SHA);
      expect(await run(node, 'admit', call)).toEqual([[1, expect.stringMatching(/^JOB/)]]);
    },
  );

  when(kind.family !== 'script')(
    'confirms a write and a duplicate (its touch) with WAIT on a primary with a replica',
    async () => {
      const { primary } = setup().replicated as ReplicatedHandle;
      for (const reply of await installAsInstaller(kind, primary))
        expect(String(reply)).not.toMatch(REFUSED);
      const queue = randomQueue('acl-wait');
      const id = jobId();
      const first = admitCall(queue, [{ idSource: 'm', id, key: 'w', payload: 'confirmed' }]);
      const again = admitCall(queue, [
        { idSource: 'm', id: jobId(), key: 'w', payload: 'confirmed' },
      ]);
      const replies = await as(primary, FUNCTIONS_USER, async (client) => [
        await send(client, command(kind.family, 'admit', first)),
        await send(client, ['WAIT', '1', '5000']),
        await send(client, command(kind.family, 'admit', again)),
        await send(client, ['WAIT', '1', '5000']),
      ]);
      expect(replies).toEqual([[[1, id]], 1, [[0, id]], 1]);
    },
  );
});
