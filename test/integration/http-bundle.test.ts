import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintId } from '../../src/keyspace/ids.js';
import {
  FIXTURE_BINARY_BODY,
  fixture,
  type HttpEventJson,
  lambdaContext,
} from '../fixtures/http/events.js';
import { bundlePath, freshBundle, run } from '../support/bundles.js';
import { connectTo, jobsOf, startFencedServer } from '../support/emq.js';
import { randomQueue, type ServerHandle } from '../support/servers.js';

const BUNDLE = bundlePath('functions/http');
const SOURCES = ['src', 'functions/http', 'functions/shared'];

// The runner's child: imports the bundle by URL, serves each event with a Lambda-shaped
// context, prints each response on a RESULT line (the handler's own log lines go to stdout
// too) and exits, closing the container's connection with the process as Lambda does.
const CHILD = `
const [bundle, events, contexts] = process.argv.slice(1);
const { handler } = await import(bundle);
for (const [index, event] of JSON.parse(events).entries()) {
  const context = { ...JSON.parse(contexts)[index], getRemainingTimeInMillis: () => 30000 };
  const response = await handler(event, context);
  process.stdout.write('RESULT ' + JSON.stringify(response) + '\\n');
}
process.exit(0);
`;

interface BundleRun {
  readonly responses: { statusCode: number; headers: Record<string, string>; body: string }[];
  readonly logs: Record<string, unknown>[];
}

async function serveWithBundle(
  server: ServerHandle,
  events: readonly HttpEventJson[],
): Promise<BundleRun> {
  const contexts = events.map(() => {
    const { getRemainingTimeInMillis: _, ...rest } = lambdaContext();
    return rest;
  });
  const { stdout } = await run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      CHILD,
      new URL(`file://${BUNDLE}`).href,
      JSON.stringify(events),
      JSON.stringify(contexts),
    ],
    { env: { PATH: process.env.PATH, EMQ_URL: server.url }, timeout: 20_000 },
  );
  const lines = stdout.split('\n').filter((line) => line !== '');
  return {
    responses: lines
      .filter((line) => line.startsWith('RESULT '))
      .map((line) => JSON.parse(line.slice('RESULT '.length))),
    logs: lines
      .filter((line) => !line.startsWith('RESULT '))
      .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

let server: ServerHandle;

beforeAll(async () => {
  // `npm test` builds first; rebuild only a bundle older than its sources.
  await freshBundle('functions/http', SOURCES);
  server = await startFencedServer();
}, 180_000);

afterAll(() => server?.stop());

describe('the built HTTP bundle', () => {
  it('serves POST, PUT and GET end to end and writes the rows', async () => {
    const queue = randomQueue('http-bundle');
    const id = mintId();
    const { responses, logs } = await serveWithBundle(server, [
      fixture('v2-post', { queue }),
      fixture('v1-post-base64', { queue }),
      fixture('url-put', { queue, id }),
      fixture('v1-get', { queue, id }),
    ]);
    expect(responses.map((response) => response.statusCode)).toEqual([201, 201, 201, 200]);
    const posted = JSON.parse(responses[0]?.body ?? '{}') as { id: string };
    expect(responses[0]?.headers.location).toBe(`/queues/${queue}/jobs/${posted.id}`);
    expect(JSON.parse(responses[3]?.body ?? '{}')).toMatchObject({ queue, id, state: 'pending' });

    const binary = JSON.parse(responses[1]?.body ?? '{}') as { id: string };
    const reader = await connectTo(server);
    const row = await reader.client.hgetallBuffer(`emq:{${queue}}:job:${binary.id}`);
    expect(row.payload?.equals(FIXTURE_BINARY_BODY)).toBe(true);
    expect((await jobsOf(reader, queue)).rows).toEqual([posted.id, binary.id, id].sort());

    const requests = logs.filter((line) => line.message === 'http request');
    expect(requests.map((line) => line.status)).toEqual([201, 201, 201, 200]);
    expect(logs.filter((line) => line.Face === 'http')).toHaveLength(4);
  });
});
