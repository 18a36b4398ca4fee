// `emq enqueue` against a real server with the module: what it writes, what it prints, and
// the exit code of each outcome (0 enqueued or duplicate, 1 refused or failed, 2 usage).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install } from '../../src/connection/fence.js';
import { type Connection, readJob } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import { assertBuilt, emq, STACK_FRAME } from '../support/cli.js';
import { connectTo, jobsOf } from '../support/emq.js';
import { freePort, randomQueue, type ServerHandle, startStandalone } from '../support/servers.js';

let server: ServerHandle;
let connection: Connection;

beforeAll(async () => {
  assertBuilt();
  server = await startStandalone({ module: true });
  connection = await connectTo(server, { checkFence: false });
  await install(connection);
});

afterAll(async () => {
  await server?.stop();
});

const at = () => ['--url', server.url];

describe('emq enqueue', () => {
  it('enqueues the payload argument and prints status, queue and id', async () => {
    const queue = randomQueue();
    const run = await emq(['enqueue', queue, 'hello', ...at()]);
    expect(run.code).toBe(0);
    const [status, printedQueue, id] = run.stdout.trim().split(' ');
    expect([status, printedQueue]).toEqual(['enqueued', queue]);
    const row = await readJob(connection, queue, id ?? '');
    expect(row?.payload.toString()).toBe('hello');
    expect(row?.state).toBe('pending');
    expect((await jobsOf(connection, queue)).pending).toEqual([id]);
  });

  it('stores the bytes of stdin verbatim with -', async () => {
    const queue = randomQueue();
    const bytes = Buffer.from([0, 255, 10, 13, 128, 0x7f]);
    const run = await emq(['enqueue', queue, '-', '--json', ...at()], { input: bytes });
    expect(run.code).toBe(0);
    const { id } = JSON.parse(run.stdout) as { id: string };
    expect((await readJob(connection, queue, id))?.payload.equals(bytes)).toBe(true);
  });

  it('prints one JSON line with --json', async () => {
    const queue = randomQueue();
    const id = mintId();
    const run = await emq(['enqueue', queue, 'x', '--id', id, '--json', ...at()]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${JSON.stringify({ queue, id, status: 'enqueued' })}\n`);
  });

  it('answers duplicate with exit 0 when the same id and payload come again', async () => {
    const queue = randomQueue();
    const id = mintId();
    await emq(['enqueue', queue, 'same', '--id', id, ...at()]);
    const again = await emq(['enqueue', queue, 'same', '--id', id, ...at()]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`duplicate ${queue} ${id}\n`);
    expect((await jobsOf(connection, queue)).rows).toEqual([id]);
  });

  it('refuses the same id with another payload: EMQ_CONFLICT, exit 1, row unchanged', async () => {
    const queue = randomQueue();
    const id = mintId();
    await emq(['enqueue', queue, 'first', '--id', id, ...at()]);
    const run = await emq(['enqueue', queue, 'second', '--id', id, ...at()]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^emq: EMQ_CONFLICT: /);
    expect(run.stdout).toBe('');
    expect((await readJob(connection, queue, id))?.payload.toString()).toBe('first');
  });

  it('maps a replay of an idempotency key to the first job', async () => {
    const queue = randomQueue();
    const args = ['enqueue', queue, 'order 42', '--idempotency-key', 'order-42', '--json'];
    const first = JSON.parse((await emq([...args, ...at()])).stdout) as { id: string };
    const replay = await emq([...args, ...at()]);
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout)).toEqual({ queue, id: first.id, status: 'duplicate' });
    expect((await jobsOf(connection, queue)).rows).toEqual([first.id]);
  });

  it('prints a failure as a JSON error object on stdout with --json', async () => {
    const queue = randomQueue();
    const id = mintId();
    await emq(['enqueue', queue, 'a', '--id', id, ...at()]);
    const run = await emq(['enqueue', queue, 'b', '--id', id, '--json', ...at()]);
    expect(run.code).toBe(1);
    const { error } = JSON.parse(run.stdout) as { error: { code: string; retryable: boolean } };
    expect(error.code).toBe('EMQ_CONFLICT');
    expect(error.retryable).toBe(false);
  });

  it('refuses a payload over EMQ_MAX_PAYLOAD_BYTES with exit 1 and writes nothing', async () => {
    const queue = randomQueue();
    const run = await emq(['enqueue', queue, 'too long', ...at()], {
      env: { EMQ_MAX_PAYLOAD_BYTES: '4' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^emq: EMQ_PAYLOAD_TOO_LARGE: /);
    expect(await jobsOf(connection, queue)).toEqual({ rows: [], pending: [] });
  });

  it('connects through EMQ_URL when --url is left out', async () => {
    const queue = randomQueue();
    const run = await emq(['enqueue', queue, 'via env'], { env: { EMQ_URL: server.url } });
    expect(run.code).toBe(0);
    expect((await jobsOf(connection, queue)).rows).toHaveLength(1);
  });

  it('refuses to write where the fence holds another identity: EMQWIRE, exit 1, an operator fault', async () => {
    const queue = randomQueue();
    const run = await emq(['enqueue', queue, 'x', ...at()], { env: { EMQ_WIRE: '2' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^emq: EMQWIRE: .*emq (fence )?install.*\n$/);
    expect(run.stderr).not.toContain('(retryable)');
    expect(await jobsOf(connection, queue)).toEqual({ rows: [], pending: [] });
  });

  it('reports an unreachable server as EMQ_UNAVAILABLE naming the URL, with exit 1 and no stack trace', async () => {
    const port = await freePort();
    const run = await emq(['enqueue', randomQueue(), 'x', '--url', `redis://127.0.0.1:${port}`]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^emq: EMQ_UNAVAILABLE: .*\(retryable\)\n$/);
    expect(run.stderr).not.toMatch(STACK_FRAME);
    // The operator's own URL is named (without credentials), so a wrong port shows.
    expect(run.stderr).toContain(`redis://127.0.0.1:${port}`);
  });

  it('refuses an invalid queue name with exit 2 before connecting', async () => {
    const port = await freePort();
    const run = await emq(['enqueue', 'bad{queue}', 'x', '--url', `redis://127.0.0.1:${port}`]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^emq: EMQ_INVALID_QUEUE: /);
  });

  it('refuses a malformed --id with exit 2', async () => {
    const run = await emq(['enqueue', randomQueue(), 'x', '--id', 'job-1', ...at()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^emq: EMQ_INVALID_ID: /);
  });

  it('refuses --id together with --idempotency-key with exit 2', async () => {
    const run = await emq([
      'enqueue',
      randomQueue(),
      'x',
      '--id',
      mintId(),
      '--idempotency-key',
      'k',
      ...at(),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('cannot be used with option');
  });

  it('refuses a malformed --url with exit 2, without echoing it', async () => {
    const run = await emq(['enqueue', randomQueue(), 'x', '--url', 'http://user:secret@host']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^emq: EMQ_CONFIG: /);
    expect(run.stderr).not.toContain('secret');
  });
});
