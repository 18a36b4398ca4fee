// Every endpoint form of docs/client.md "The endpoint", with and without its trailing `/`: the
// request URL is the endpoint's path, then the route, each segment percent-encoded, never `//`. The
// client sends to exactly those URLs (its fetch records them).
import { describe, expect, it } from 'vitest';
import { endpointOf, requestUrl } from '../../client/endpoint.js';
import { EchoMqClient } from '../../client/index.js';

const ID = 'JOB0KHTOWnGLuC';

/** Each form: the endpoint as its stack output or construct property gives it, and its path. */
const FORMS = [
  [
    'HTTP API $default stage (HttpApi.url)',
    'https://abc123.execute-api.eu-west-1.amazonaws.com/',
    '',
  ],
  ['HTTP API named stage', 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod', '/prod'],
  [
    'REST API stage (RestApi.url)',
    'https://def456.execute-api.us-east-1.amazonaws.com/prod/',
    '/prod',
  ],
  ['custom domain at its root', 'https://jobs.example.com', ''],
  ['custom domain with a base path', 'https://api.example.com/emq/v1/', '/emq/v1'],
  ['Function URL', 'https://xyz789.lambda-url.eu-west-1.on.aws/', ''],
  ['the local stack', 'http://127.0.0.1:3000', ''],
] as const;

describe('requestUrl', () => {
  it.each(FORMS)('%s: with and without a trailing slash', (_, given, path) => {
    const bare = given.replace(/\/$/, '');
    for (const endpoint of [bare, `${bare}/`, `${bare}//`, new URL(`${bare}/`)]) {
      const url = requestUrl(endpointOf(endpoint), ['queues', 'orders', 'jobs']);
      expect(url.href).toBe(`${new URL(bare).origin}${path}/queues/orders/jobs`);
      expect(url.pathname).not.toContain('//');
    }
  });

  it('percent-encodes each segment once, and keeps an encoded base path as given', () => {
    const endpoint = endpointOf('https://api.example.com/my%20api/');
    const url = requestUrl(endpoint, ['queues', 'orders eu/1?#ü', 'jobs', ID]);
    expect(url.pathname).toBe(`/my%20api/queues/orders%20eu%2F1%3F%23%C3%BC/jobs/${ID}`);
    expect(url.search).toBe('');
    expect(url.hash).toBe('');
  });
});

describe('the client', () => {
  it.each(FORMS)(
    '%s: sends every route to the endpoint path joined once',
    async (_, given, path) => {
      for (const endpoint of [given.replace(/\/$/, ''), `${given.replace(/\/$/, '')}/`]) {
        const sent: string[] = [];
        const client = new EchoMqClient({
          endpoint,
          credentials: false,
          fetch: async (input, init) => {
            sent.push(`${init?.method} ${new URL(String(input)).pathname}`);
            const batch = String(input).endsWith('/batch');
            const body = batch
              ? { queue: 'orders.eu_1-a', results: [{ id: ID, status: 'enqueued' }] }
              : { queue: 'orders.eu_1-a', id: ID, status: 'enqueued', state: 'pending' };
            return new Response(JSON.stringify(body), {
              status: 201,
              headers: { 'content-type': 'application/json' },
            });
          },
        });
        await client.enqueue('orders.eu_1-a', 'x');
        await client.enqueue('orders.eu_1-a', 'x', { id: ID });
        await client.get('orders.eu_1-a', ID);
        await client.enqueueBatch('orders.eu_1-a', [{ payload: 'x' }]);
        const jobs = `${path}/queues/orders.eu_1-a/jobs`;
        expect(sent).toEqual([
          `POST ${jobs}`,
          `PUT ${jobs}/${ID}`,
          `GET ${jobs}/${ID}`,
          `POST ${jobs}/batch`,
        ]);
      }
    },
  );
});
