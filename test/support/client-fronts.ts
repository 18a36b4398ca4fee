/**
 * What the client's HTTP tests share: the fronts they run behind, a client whose requests and
 * answers are recorded, writes paused around a call, and a proxy that loses an answer.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { EchoMqClient, type RetryOptions } from '../../client/index.js';
import type { Connection } from '../../src/index.js';
import { mintId } from '../../src/keyspace/ids.js';
import { connectTo, jobsOf, startFencedServer } from './emq.js';
import { type HttpFront, type RunningFace, startHttpFace } from './functions.js';
import type { ServerHandle } from './servers.js';

/** Short waits: the function's Retry-After (1 s) is capped, so a test spends little on it. */
export const FAST: RetryOptions = { baseDelayMs: 5, maxDelayMs: 50 };

/** Each front, and the endpoint as the case gives it (the front's URL, then `suffix`). */
export const FRONTS: readonly (readonly [string, HttpFront, string])[] = [
  ["the HTTP API's root", { kind: 'api' }, ''],
  ["the HTTP API's root with a trailing /", { kind: 'api' }, '/'],
  ['the named stage /prod', { kind: 'api', stage: 'prod' }, ''],
  ['a Function URL', { kind: 'url' }, '/'],
];

/** What a request was answered: a status, or nothing (the connection dropped, or timed out). */
export type Answered = number | 'no answer';

/** The answers a client retries: 503, and none at all. */
const RETRIED: readonly Answered[] = [503, 'no answer'];

/**
 * Checks one call's answers as the client promises them: retryable answers (503, or none),
 * each followed by a retry, until the one that ended the call, which is one of `last`. Load
 * decides how many retries a call takes (behind these fronts the function answers 503 once
 * a command outlasts 300 ms), so a test asserts what ended the call and that only retryable
 * answers were retried, never how many there were.
 */
export function expectRetriedUntil(answers: readonly Answered[], last: readonly Answered[]): void {
  expect(answers.length, 'requests sent').toBeGreaterThan(0);
  expect(answers.slice(0, -1).filter((answer) => !RETRIED.includes(answer))).toEqual([]);
  expect(last).toContain(answers.at(-1));
}

/**
 * The status an admission answered with, as the client reports it: 201 made the job, 200 found
 * it there (a replay, or an earlier attempt of the same call whose write landed after its 503).
 */
export function admittedAs(answer: Answered | undefined): 'enqueued' | 'duplicate' {
  return answer === 201 ? 'enqueued' : 'duplicate';
}

/**
 * One admission call checked by its answers: retried as expectRetriedUntil says, ended by
 * 201 (or, after a retry, by 200: the call's own earlier write, landed after its 503), and
 * reported as that last answer says.
 */
export function expectAdmitted(answers: readonly Answered[], outcome: { status: string }): void {
  expectRetriedUntil(answers, answers.length === 1 ? [201] : [201, 200]);
  expect(outcome.status).toBe(admittedAs(answers.at(-1)));
}

/** A client whose every request and answer status is recorded; `onAnswer` runs before the caller sees one. */
export function recordingClient(
  endpoint: string,
  options: {
    retry?: RetryOptions;
    maxPayloadBytes?: number;
    onAnswer?: (status: number) => Promise<void>;
  } = {},
) {
  const statuses: Answered[] = [];
  const sent: {
    method: string;
    url: string;
    key: string | null;
    bytes: number;
    /** The body's text: a batch request's items, with their keys and ids. */
    text: string;
  }[] = [];
  const client = new EchoMqClient({
    endpoint,
    credentials: false,
    retry: { ...FAST, ...options.retry },
    ...(options.maxPayloadBytes === undefined ? {} : { maxPayloadBytes: options.maxPayloadBytes }),
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers);
      sent.push({
        method: init?.method ?? 'GET',
        url: String(input),
        key: headers.get('idempotency-key'),
        bytes: init?.body instanceof Uint8Array ? init.body.byteLength : 0,
        text: init?.body instanceof Uint8Array ? Buffer.from(init.body).toString('utf8') : '',
      });
      try {
        const response = await fetch(input, init);
        statuses.push(response.status);
        await options.onAnswer?.(response.status);
        return response;
      } catch (error) {
        statuses.push('no answer');
        throw error;
      }
    },
  });
  return { client, statuses, sent };
}

export type Recording = ReturnType<typeof recordingClient>;

/**
 * Runs `use` with writes paused (CLIENT PAUSE WRITE): a write is held past the function's
 * command timeout, so it answers 503, and the write lands once the client has seen the 503
 * (the pause ends then, before the client retries). The function's connection is opened first.
 */
export async function whilePaused(
  server: ServerHandle,
  endpoint: string,
  queue: string,
  use: (recording: Recording) => Promise<void>,
): Promise<void> {
  const admin = await server.client();
  const recording = recordingClient(endpoint, {
    onAnswer: async (status) => {
      if (status === 503) await admin.call('CLIENT', 'UNPAUSE');
    },
  });
  await recording.client.get(queue, mintId());
  await admin.call('CLIENT', 'PAUSE', '20000', 'WRITE');
  try {
    await use(recording);
  } finally {
    await admin.call('CLIENT', 'UNPAUSE');
  }
}

/**
 * A TCP proxy in front of the HTTP front that, on its first connection, forwards the request
 * and loses the answer as it starts to come back: `drop` closes the caller's socket, `hold`
 * keeps it open and silent until the caller gives up. Either way the request was served and
 * the caller never hears of it. Later connections pass both ways.
 */
export async function lossyProxy(
  target: URL,
  lose: 'drop' | 'hold',
): Promise<{
  url: string;
  lost: () => number;
  /** The status of the answer lost, read from its first bytes. */
  lostStatus: () => number | undefined;
  close: () => Promise<void>;
}> {
  let connections = 0;
  let lost = 0;
  let lostStatus: number | undefined;
  const sockets = new Set<Socket>();
  const proxy: Server = createServer((caller) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    sockets.add(caller);
    sockets.add(upstream);
    caller.pipe(upstream);
    if (connections++ === 0) {
      upstream.once('data', (chunk: Buffer) => {
        lost += 1;
        const status = /^HTTP\/1\.[01] (\d{3})/.exec(chunk.toString('latin1'))?.[1];
        lostStatus = status === undefined ? undefined : Number(status);
        if (lose === 'drop') caller.destroy();
      });
    } else {
      upstream.pipe(caller);
    }
    for (const socket of [caller, upstream]) {
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        (socket === caller ? upstream : caller).destroy();
      });
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    lost: () => lost,
    lostStatus: () => lostStatus,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        proxy.close(() => resolve());
      }),
  };
}

/** What a test behind each front reaches: the file's server, and the front it runs behind now. */
export interface FrontSuite {
  readonly server: ServerHandle;
  /** A connection of the test's own, to count what landed. */
  readonly reader: Connection;
  readonly face: RunningFace;
  /** The endpoint the client is given: the front's URL, as the case writes it. */
  readonly endpoint: string;
  /** A recording client of the front under test (or of `endpoint`). */
  recordingClient(
    options?: Parameters<typeof recordingClient>[1] & { endpoint?: string },
  ): Recording;
  /** The queue's rows and pending ids, read in Valkey. */
  jobCount(queue: string): Promise<{ rows: string[]; pending: string[] }>;
  /** `whilePaused` of the front under test. */
  whilePaused(queue: string, use: (recording: Recording) => Promise<void>): Promise<void>;
}

/**
 * One fenced server for the file, and `body`'s tests run behind each front in turn: the built
 * HTTP function in a process of its own behind that front, where a held write answers 503
 * after 300 ms instead of 2 s.
 */
export function describeBehindEachFront(body: (suite: FrontSuite, front: HttpFront) => void): void {
  let server: ServerHandle;
  let reader: Connection;
  let face: RunningFace;
  let endpoint: string;
  beforeAll(async () => {
    server = await startFencedServer();
    reader = await connectTo(server);
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
  });
  const suite: FrontSuite = {
    get server() {
      return server;
    },
    get reader() {
      return reader;
    },
    get face() {
      return face;
    },
    get endpoint() {
      return endpoint;
    },
    recordingClient: (options = {}) => recordingClient(options.endpoint ?? endpoint, options),
    jobCount: (queue) => jobsOf(reader, queue),
    whilePaused: (queue, use) => whilePaused(server, endpoint, queue, use),
  };
  describe.each(FRONTS)('behind %s', (_, front, suffix) => {
    beforeAll(async () => {
      face = await startHttpFace(server, { env: { EMQ_COMMAND_TIMEOUT_MS: '300' }, front });
      endpoint = `${face.url}${suffix}`;
    }, 180_000);
    afterAll(async () => {
      await face?.stop();
    });
    body(suite, front);
  });
}
