// README.md "The HTTP face" on real servers: every route and outcome of the HTTP face, driven
// through the Lambda handler with recorded-shape events of each front (HTTP API 2.0, REST 1.0,
// Function URL), on a standalone server and a cluster, with both families. Assertions read the rows
// back, or compare DEBUG DIGEST before and after a refusal.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handler } from '../../functions/http/handler.js';
import { containerConnection, resetContainer } from '../../functions/shared/connection.js';
import { type LogSink, setLogSink } from '../../functions/shared/log.js';
import { install } from '../../src/connection/fence.js';
import type { Connection } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import {
  FIXTURE_BINARY_BODY,
  FIXTURE_IDEMPOTENCY_KEY,
  FIXTURE_TEXT_BODY,
  FORMATS,
  type Format,
  fixture,
  type HttpEventJson,
  withBody,
  withHeader,
} from '../fixtures/http/events.js';
import {
  clearEmqEnv,
  configureContainer,
  invoke as invokeHandler,
} from '../fixtures/http/invoke.js';
import { connectTo, jobsOf, recordOf } from '../support/emq.js';
import {
  type ClusterHandle,
  digestOf,
  randomQueue,
  type ServerHandle,
  startCluster,
  startStandalone,
} from '../support/servers.js';

type Target = ServerHandle | ClusterHandle;
type Choice = 'auto' | 'function';

interface Topology {
  readonly name: string;
  readonly start: () => Promise<Target>;
  /** EMQ_EXECUTOR, and the family the connection must end up with. */
  readonly families: ReadonlyArray<readonly [Choice, 'native' | 'function']>;
}

const TOPOLOGIES: readonly Topology[] = [
  {
    name: 'a standalone server with the module',
    start: () => startStandalone({ module: true }),
    families: [
      ['auto', 'native'],
      ['function', 'function'],
    ],
  },
  {
    name: 'a standalone server without the module',
    start: () => startStandalone(),
    families: [['auto', 'function']],
  },
  {
    name: 'a 3-primary cluster with the module',
    start: () => startCluster({ module: true }),
    families: [
      ['auto', 'native'],
      ['function', 'function'],
    ],
  },
];

const MAX_PAYLOAD_BYTES = 1024;
const logLines: string[] = [];
let previousSink: LogSink;

beforeAll(() => {
  previousSink = setLogSink((line) => logLines.push(line));
});

afterAll(async () => {
  await resetContainer();
  setLogSink(previousSink);
  clearEmqEnv();
});

const invoke = (event: HttpEventJson) => invokeHandler(handler, event);

/** The path prefix each front's Location carries: REST keeps its stage, `/prod`. */
const MOUNT: Readonly<Record<Format, string>> = { v2: '', v1: '/prod', url: '' };

describe.each(TOPOLOGIES)('on $name', ({ start, families }) => {
  let target: Target;
  let reader: Connection;

  const digest = async (): Promise<unknown> =>
    target.kind === 'server' ? await digestOf(target) : [...(await digestOf(target))].sort();

  beforeAll(async () => {
    target = await start();
    reader = await connectTo(target, { checkFence: false });
    await install(reader);
  });

  afterAll(async () => {
    await resetContainer();
    await target?.stop();
  });

  describe.each(families)('with EMQ_EXECUTOR=%s', (choice, kind) => {
    beforeAll(async () => {
      await configureContainer(target, {
        EMQ_EXECUTOR: choice,
        EMQ_MAX_PAYLOAD_BYTES: String(MAX_PAYLOAD_BYTES),
      });
    });

    it(`serves with the ${kind} family`, async () => {
      expect((await containerConnection()).family.name).toBe(kind);
    });

    describe.each(FORMATS)('%s events', (format) => {
      let queue: string;
      beforeEach(() => {
        queue = randomQueue(`http-${format}`);
      });

      const rowOf = async (id: string) => reader.client.hgetallBuffer(`emq:{${queue}}:job:${id}`);
      const pendingScore = (id: string) => reader.client.zscore(`emq:{${queue}}:pending`, id);

      it('POST admits the body verbatim as a pending row and answers 201 with Location', async () => {
        const { response, body, requestId } = await invoke(fixture(`${format}-post`, { queue }));
        expect(response.statusCode).toBe(201);
        const id = String(body.id);
        expect(id).toMatch(/^JOB[0-9A-Za-z]{11}$/);
        expect(body).toEqual({ queue, id, status: 'enqueued' });
        expect(response.headers).toEqual({
          'content-type': 'application/json',
          location: `${MOUNT[format]}/queues/${queue}/jobs/${id}`,
          'x-request-id': requestId,
        });
        const row = await rowOf(id);
        expect(Object.keys(row)).toEqual(['state', 'attempts', 'payload']);
        expect(row.state?.toString()).toBe('pending');
        expect(row.attempts?.toString()).toBe('0');
        expect(row.payload?.toString()).toBe(FIXTURE_TEXT_BODY);
        expect(await pendingScore(id)).toBe('0');
        expect(await jobsOf(reader, queue)).toEqual({ rows: [id], pending: [id] });
      });

      it('POST of a base64 body stores the decoded bytes', async () => {
        const { response, body } = await invoke(fixture(`${format}-post-base64`, { queue }));
        expect(response.statusCode).toBe(201);
        const row = await rowOf(String(body.id));
        expect(row.payload?.equals(FIXTURE_BINARY_BODY)).toBe(true);
      });

      it('POST of an empty body admits an empty payload', async () => {
        const { response, body } = await invoke(withBody(fixture(`${format}-post`, { queue }), ''));
        expect(response.statusCode).toBe(201);
        expect((await rowOf(String(body.id))).payload?.length).toBe(0);
      });

      it('POST replayed with its Idempotency-Key answers 200 with the same Location and writes nothing', async () => {
        const event = fixture(`${format}-post-idempotency-key`, { queue });
        const first = await invoke(event);
        expect(first.response.statusCode).toBe(201);
        const before = await digest();
        const replay = await invoke(event);
        expect(replay.response.statusCode).toBe(200);
        expect(replay.body).toEqual({ queue, id: first.body.id, status: 'duplicate' });
        expect(replay.response.headers.location).toBe(first.response.headers.location);
        expect(await digest()).toEqual(before);
        const id = String(first.body.id);
        expect(await jobsOf(reader, queue)).toEqual({ rows: [id], pending: [id] });
        expect((await recordOf(reader, queue, 'http', FIXTURE_IDEMPOTENCY_KEY))?.id).toBe(id);
      });

      it('POST with a used Idempotency-Key and another body answers 422 and writes nothing', async () => {
        await invoke(fixture(`${format}-post-idempotency-key`, { queue }));
        const before = await digest();
        const other = withBody(fixture(`${format}-post-idempotency-key`, { queue }), 'other');
        const { response, body, requestId } = await invoke(other);
        expect(response.statusCode).toBe(422);
        expect(response.headers['content-type']).toBe('application/problem+json');
        expect(body).toMatchObject({
          status: 422,
          code: 'EMQ_IDEMPOTENCY_MISMATCH',
          retryable: false,
          requestId,
        });
        expect(await digest()).toEqual(before);
      });

      it('PUT admits the body under the caller id and answers 201 with Location', async () => {
        const id = mintId();
        const { response, body } = await invoke(fixture(`${format}-put`, { queue, id }));
        expect(response.statusCode).toBe(201);
        expect(body).toEqual({ queue, id, status: 'enqueued' });
        expect(response.headers.location).toBe(`${MOUNT[format]}/queues/${queue}/jobs/${id}`);
        expect((await rowOf(id)).payload?.toString()).toBe(FIXTURE_TEXT_BODY);
        expect(await jobsOf(reader, queue)).toEqual({ rows: [id], pending: [id] });
      });

      it('PUT ignores an Idempotency-Key: the id is the key (namespace id), the header makes no record', async () => {
        const id = mintId();
        const event = withHeader(fixture(`${format}-put`, { queue, id }), 'Idempotency-Key', 'k1');
        expect((await invoke(event)).response.statusCode).toBe(201);
        expect(await reader.client.exists(`emq:{${queue}}:job:${id}`)).toBe(1);
        expect((await recordOf(reader, queue, 'id', id))?.id).toBe(id);
        expect(await recordOf(reader, queue, 'http', 'k1')).toBeNull();
      });

      it('PUT again with the same body answers 200 duplicate and writes nothing', async () => {
        const id = mintId();
        const event = fixture(`${format}-put`, { queue, id });
        await invoke(event);
        const before = await digest();
        const { response, body } = await invoke(event);
        expect(response.statusCode).toBe(200);
        expect(body).toEqual({ queue, id, status: 'duplicate' });
        expect(response.headers.location).toBe(`${MOUNT[format]}/queues/${queue}/jobs/${id}`);
        expect(await digest()).toEqual(before);
      });

      it('PUT with another body for an existing id answers 409 and writes nothing', async () => {
        const id = mintId();
        await invoke(fixture(`${format}-put`, { queue, id }));
        const before = await digest();
        const { response, body } = await invoke(
          withBody(fixture(`${format}-put`, { queue, id }), 'another payload'),
        );
        expect(response.statusCode).toBe(409);
        expect(body).toMatchObject({ status: 409, code: 'EMQ_CONFLICT', retryable: false });
        expect(await digest()).toEqual(before);
        expect((await rowOf(id)).payload?.toString()).toBe(FIXTURE_TEXT_BODY);
      });

      it('GET reads back the state, attempts and payload of a job', async () => {
        const id = mintId();
        await invoke(withBody(fixture(`${format}-put`, { queue, id }), FIXTURE_BINARY_BODY));
        const { response, body, requestId } = await invoke(fixture(`${format}-get`, { queue, id }));
        expect(response.statusCode).toBe(200);
        expect(response.headers).toEqual({
          'content-type': 'application/json',
          'x-request-id': requestId,
        });
        expect(body).toEqual({
          queue,
          id,
          state: 'pending',
          attempts: 0,
          payload: FIXTURE_BINARY_BODY.toString('base64'),
          encoding: 'base64',
        });
      });

      it('GET of a job that does not exist answers 404 EMQ_JOB_NOT_FOUND', async () => {
        const { response, body } = await invoke(fixture(`${format}-get`, { queue, id: mintId() }));
        expect(response.statusCode).toBe(404);
        expect(response.headers['content-type']).toBe('application/problem+json');
        expect(body).toMatchObject({ status: 404, code: 'EMQ_JOB_NOT_FOUND', retryable: false });
      });

      it('an invalid queue answers 400 EMQ_INVALID_QUEUE and writes nothing', async () => {
        const before = await digest();
        const { response, body } = await invoke(fixture(`${format}-post`, { queue: 'a:b' }));
        expect(response.statusCode).toBe(400);
        expect(body).toMatchObject({ code: 'EMQ_INVALID_QUEUE' });
        expect(await digest()).toEqual(before);
      });

      it('an invalid job id answers 400 EMQ_INVALID_ID and writes nothing', async () => {
        const before = await digest();
        const { response, body } = await invoke(
          fixture(`${format}-put`, { queue, id: 'TASK0KHTOWnGLu' }),
        );
        expect(response.statusCode).toBe(400);
        expect(body).toMatchObject({ code: 'EMQ_INVALID_ID' });
        expect(await digest()).toEqual(before);
      });

      it('a body over EMQ_MAX_PAYLOAD_BYTES answers 413 and writes nothing', async () => {
        const before = await digest();
        const big = Buffer.alloc(MAX_PAYLOAD_BYTES + 1, 0x61);
        const { response, body } = await invoke(
          withBody(fixture(`${format}-post`, { queue }), big),
        );
        expect(response.statusCode).toBe(413);
        expect(body).toMatchObject({ code: 'EMQ_PAYLOAD_TOO_LARGE', retryable: false });
        expect(await digest()).toEqual(before);
      });

      it('logs one line for the request, naming route, queue, job and outcome', async () => {
        const { body, requestId } = await invoke(fixture(`${format}-post`, { queue }));
        const lines = logLines
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .filter((line) => line.requestId === requestId);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatchObject({
          level: 'info',
          format,
          route: 'POST /queues/{queue}/jobs',
          queue,
          id: body.id,
          status: 201,
          outcome: 'enqueued',
        });
        expect(JSON.stringify(lines)).not.toContain('A-113');
      });
    });

    it('keeps a named stage of an HTTP API in Location', async () => {
      const queue = randomQueue('http-stage');
      const { response, body } = await invoke(fixture('v2-stage-post', { queue }));
      expect(response.statusCode).toBe(201);
      expect(response.headers.location).toBe(`/prod/queues/${queue}/jobs/${String(body.id)}`);
    });
  });
});
