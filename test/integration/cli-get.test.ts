// `emq get` against a real server: the row as text, as JSON (the HTTP face's shape), as raw
// bytes, and the exit codes of a missing job and a malformed id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install } from '../../src/connection/fence.js';
import { type Connection, enqueue } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import { assertBuilt, emq } from '../support/cli.js';
import { connectTo } from '../support/emq.js';
import { randomQueue, type ServerHandle, startStandalone } from '../support/servers.js';

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

async function seeded(payload: string | Buffer): Promise<{ queue: string; id: string }> {
  const queue = randomQueue();
  const { id } = await enqueue(connection, { queue, payload });
  return { queue, id };
}

describe('emq get', () => {
  it('prints the row as aligned lines', async () => {
    const { queue, id } = await seeded('hello');
    const run = await emq(['get', queue, id, ...at()]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      `queue     ${queue}\nid        ${id}\nstate     pending\nattempts  0\npayload   hello\n`,
    );
  });

  it('prints the HTTP face’s JSON shape with --json', async () => {
    const { queue, id } = await seeded('{"n":1}');
    const run = await emq(['get', queue, id, '--json', ...at()]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      queue,
      id,
      state: 'pending',
      attempts: 0,
      payload: '{"n":1}',
      encoding: 'utf8',
    });
  });

  it('shows a payload that is not UTF-8 as base64', async () => {
    const bytes = Buffer.from([0xff, 0xfe, 0, 1]);
    const { queue, id } = await seeded(bytes);
    const run = await emq(['get', queue, id, '--json', ...at()]);
    const shown = JSON.parse(run.stdout) as { payload: string; encoding: string };
    expect(shown.encoding).toBe('base64');
    expect(Buffer.from(shown.payload, 'base64').equals(bytes)).toBe(true);
  });

  it('writes exactly the stored bytes with --raw', async () => {
    const bytes = Buffer.from([0, 0xff, 0x0a, 0x80]);
    const { queue, id } = await seeded(bytes);
    const run = await emq(['get', queue, id, '--raw', ...at()]);
    expect(run.code).toBe(0);
    expect(run.stdoutBytes.equals(bytes)).toBe(true);
  });

  it('exits 1 with EMQ_JOB_NOT_FOUND for a job that is not there', async () => {
    const run = await emq(['get', randomQueue(), mintId(), ...at()]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^emq: EMQ_JOB_NOT_FOUND: /);
    expect(run.stdout).toBe('');
  });

  it('exits 2 with EMQ_INVALID_ID for an id that is not a job id', async () => {
    const run = await emq(['get', randomQueue(), 'JOB-1', ...at()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^emq: EMQ_INVALID_ID: /);
  });

  it('reads even where the fence does not match, since reading writes nothing', async () => {
    const { queue, id } = await seeded('kept');
    const run = await emq(['get', queue, id, '--json', ...at()], { env: { EMQ_WIRE: '2' } });
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { payload: string }).payload).toBe('kept');
  });
});
