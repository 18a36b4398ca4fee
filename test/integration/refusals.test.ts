// Every refusal of docs/wire.md "The calls" leaves the dataset byte-for-byte as it was and maps to
// its class.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install } from '../../src/connection/fence.js';
import {
  ConfigError,
  type Connection,
  connect,
  type EmqError,
  enqueue,
  FenceError,
  InvalidInputError,
  PausedError,
  RefusedError,
} from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import { classifyFailure } from '../../src/outcomes/outcome-rules.js';
import { connectTo, startFencedServer } from '../support/emq.js';
import { digestOf, randomQueue, type ServerHandle, startStandalone } from '../support/servers.js';

let server: ServerHandle;
let native: Connection;
let script: Connection;

beforeAll(async () => {
  server = await startFencedServer();
  native = await connectTo(server, { family: 'native' });
  script = await connectTo(server, { family: 'function' });
});

afterAll(() => server.stop());

/** Runs `act`, expects it to fail, and checks the dataset did not change. */
async function refusal(act: () => Promise<unknown>): Promise<EmqError> {
  const before = await digestOf(server);
  let failure: unknown;
  try {
    await act();
  } catch (error) {
    failure = error;
  }
  expect(failure, 'the call should have been refused').toBeDefined();
  expect(await digestOf(server)).toBe(before);
  return classifyFailure(failure);
}

// Caller ids are judged by their age: minted as the file starts.
const id = mintId();

function rawNative(keys: [string, string], argv: [string, string]): Promise<unknown> {
  return native.client.call('EMQ.ENQUEUE', '2', ...keys, ...argv);
}

function rawFunction(keys: [string, string], argv: [string, string]): Promise<unknown> {
  return script.client.call('FCALL', 'emq_enqueue', '2', ...keys, ...argv);
}

describe.each([
  ['native', rawNative],
  ['function', rawFunction],
])('the %s write refuses', (_, send) => {
  it('keys of two queues (EMQLAYOUT)', async () => {
    const [a, b] = [randomQueue('la'), randomQueue('lb')];
    const outcome = await refusal(() =>
      send([`emq:{${a}}:job:${id}`, `emq:{${b}}:pending`], [id, 'x']),
    );
    expect(outcome).toBeInstanceOf(RefusedError);
    expect(outcome.code).toBe('EMQLAYOUT');
  });

  it('a row key that is not the id (EMQLAYOUT)', async () => {
    const q = randomQueue('lc');
    const outcome = await refusal(() =>
      send([`emq:{${q}}:job:JOB0000000000A`, `emq:{${q}}:pending`], [id, 'x']),
    );
    expect(outcome.code).toBe('EMQLAYOUT');
  });

  it('an id without the JOB prefix (EMQKIND)', async () => {
    const q = randomQueue('kind');
    const outcome = await refusal(() =>
      send([`emq:{${q}}:job:XOB1`, `emq:{${q}}:pending`], ['XOB1', 'x']),
    );
    expect(outcome).toBeInstanceOf(RefusedError);
    expect(outcome).toMatchObject({ code: 'EMQKIND', retryable: false });
    expect((outcome.cause as Error).message).toBe('EMQKIND job id must be JOB-namespaced');
  });
});

describe.each([
  ['native', () => native],
  ['function', () => script],
])('through the %s family', (_, conn) => {
  it('a pending key of the wrong type is refused (EMQ_WRONGTYPE)', async () => {
    const queue = randomQueue('wt');
    await conn().client.set(`emq:{${queue}}:pending`, 'not a sorted set');
    const outcome = await refusal(() => enqueue(conn(), { queue, payload: 'x' }));
    expect(outcome).toMatchObject({ code: 'EMQ_WRONGTYPE', retryable: false, status: 500 });
  });

  it('an invalid queue is refused before any I/O (EMQ_INVALID_QUEUE)', async () => {
    const outcome = await refusal(() => enqueue(conn(), { queue: 'a:b', payload: 'x' }));
    expect(outcome).toBeInstanceOf(InvalidInputError);
    expect(outcome.code).toBe('EMQ_INVALID_QUEUE');
  });

  it('an invalid id is refused before any I/O (EMQ_INVALID_ID)', async () => {
    const outcome = await refusal(() =>
      enqueue(conn(), { queue: randomQueue('id'), id: 'JOBzzzzzzzzzzz', payload: 'x' }),
    );
    expect(outcome.code).toBe('EMQ_INVALID_ID');
  });

  it('a payload over the cap is refused before any I/O (EMQ_PAYLOAD_TOO_LARGE)', async () => {
    const payload = Buffer.alloc(conn().config.maxPayloadBytes + 1);
    const outcome = await refusal(() => enqueue(conn(), { queue: randomQueue('big'), payload }));
    expect(outcome).toMatchObject({ code: 'EMQ_PAYLOAD_TOO_LARGE', status: 413 });
  });
});

// Where the module is loaded, the function family writes through EMQ.ENQUEUE: the fence holds.
describe.each([
  ['native', () => native],
  ['function', () => script],
])('the module fence, %s family', (_, conn) => {
  it('refuses every write while {emq}:version is missing (EMQWIRE, retryable)', async () => {
    await native.client.del('{emq}:version');
    try {
      const outcome = await refusal(() =>
        enqueue(conn(), { queue: randomQueue('f'), payload: 'x' }),
      );
      expect(outcome).toBeInstanceOf(FenceError);
      expect(outcome).toMatchObject({ code: 'EMQWIRE', retryable: true, status: 503 });
    } finally {
      await install(native);
    }
  });

  it('refuses every write while {emq}:version holds another identity', async () => {
    await native.client.set('{emq}:version', '2');
    try {
      const outcome = await refusal(() =>
        enqueue(conn(), { queue: randomQueue('f'), payload: 'x', id }),
      );
      expect(outcome.code).toBe('EMQWIRE');
    } finally {
      await install(native);
    }
  });
});

describe('a write-paused server', () => {
  it('refuses EMQ.ENQUEUE inside a transaction with ERR EMQ write-paused (EMQ_PAUSED)', async () => {
    const queue = randomQueue('pause');
    const client = await server.client();
    try {
      const outcome = await refusal(async () => {
        const replies = await client
          .multi()
          .call('CLIENT', 'PAUSE', '3000', 'WRITE')
          .call('EMQ.ENQUEUE', '2', `emq:{${queue}}:job:${id}`, `emq:{${queue}}:pending`, id, 'x')
          .exec();
        const failure = replies?.[1]?.[0];
        if (failure) throw failure;
      });
      expect(outcome).toBeInstanceOf(PausedError);
      expect(outcome).toMatchObject({ code: 'EMQ_PAUSED', retryable: true });
    } finally {
      await client.call('CLIENT', 'UNPAUSE');
      client.disconnect();
    }
  });
});

describe('a server without the module', () => {
  let plain: ServerHandle;
  beforeAll(async () => {
    plain = await startStandalone({ module: false });
  });
  afterAll(() => plain.stop());

  it('answers EMQ.ENQUEUE as an unknown command (EMQ_NO_MODULE, permanent)', async () => {
    const client = await plain.client();
    try {
      const before = await digestOf(plain);
      const failure = await client
        .call('EMQ.ENQUEUE', '2', `emq:{q}:job:${id}`, 'emq:{q}:pending', id, 'x')
        .catch((error: unknown) => error);
      expect(classifyFailure(failure)).toMatchObject({ code: 'EMQ_NO_MODULE', retryable: false });
      expect(await digestOf(plain)).toBe(before);
    } finally {
      client.disconnect();
    }
  });

  it('refuses a native connection at open, naming the fix', async () => {
    const failure = await connect({
      urls: [plain.url],
      family: 'native',
      checkFence: false,
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect(failure).toMatchObject({ code: 'EMQ_NO_MODULE', retryable: false });
    expect(String((failure as Error).message)).toMatch(/EMQ_EXECUTOR=auto/);
  });

  it('opens an auto connection with the function family', async () => {
    await install(await connectTo(plain, { checkFence: false }));
    const conn = await connectTo(plain);
    expect(conn.family.name).toBe('function');
  });

  it.each(['function', 'script'] as const)(
    'refuses, with the %s family, every write and replay on an open connection once {emq}:version changes',
    async (family) => {
      await install(await connectTo(plain, { checkFence: false }));
      const conn = await connectTo(plain, { family });
      const queue = randomQueue('fenced');
      const first = await enqueue(conn, { queue, payload: 'p', idempotencyKey: 'k' });
      const admin = await plain.client();
      try {
        await admin.set('{emq}:version', 'another');
        const before = await digestOf(plain);
        for (const request of [
          { queue, payload: 'p', idempotencyKey: 'k' },
          { queue, payload: 'q', idempotencyKey: 'new' },
          { queue, payload: 'r', id: mintId() },
        ]) {
          const refused = await enqueue(conn, request).catch((error: unknown) => error);
          expect(refused).toMatchObject({ code: 'EMQWIRE', retryable: true });
        }
        expect(await digestOf(plain)).toBe(before);
      } finally {
        await admin.set('{emq}:version', '1');
        admin.disconnect();
      }
      expect(await enqueue(conn, { queue, payload: 'p', idempotencyKey: 'k' })).toEqual({
        ...first,
        status: 'duplicate',
      });
    },
  );
});
