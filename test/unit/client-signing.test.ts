// SigV4 as the client sends it: the request a server receives carries a signature that a
// verifier written here from the SigV4 rules (not the SDK) accepts for exactly the bytes and
// headers received; the scope comes from the endpoint's host; unsigned clients send none.
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EchoMqClient } from '../../client/index.js';
import { signingScope } from '../../client/signing.js';

const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};

interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

const received: Received[] = [];
let origin: string;
let endpoint: string;
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push({
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      body: Buffer.concat(chunks),
    });
    response.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'r' });
    response.end(JSON.stringify({ queue: 'orders', id: 'JOB0KHTOWnGLuC', status: 'enqueued' }));
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  endpoint = `${origin}/prod/`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) =>
  createHmac('sha256', key).update(data).digest();

/** The signature SigV4 gives `request` for the headers it names, computed from the rules. */
function expectedSignature(request: Received, region: string, service: string): string {
  const authorization = String(request.headers.authorization);
  const signed = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? [];
  const date = String(request.headers['x-amz-date']);
  const canonical = [
    request.method,
    request.path,
    '',
    ...signed.map((name) => `${name}:${String(request.headers[name]).trim()}`),
    '',
    signed.join(';'),
    hex(request.body),
  ].join('\n');
  const scope = `${date.slice(0, 8)}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', date, scope, hex(canonical)].join('\n');
  let key: Buffer = hmac(`AWS4${CREDENTIALS.secretAccessKey}`, date.slice(0, 8));
  for (const part of [region, service, 'aws4_request']) key = hmac(key, part);
  return createHmac('sha256', key).update(toSign).digest('hex');
}

describe('a signed client', () => {
  // At the root (an HTTP API's $default stage) the path signed is the one sent: never `//`.
  it.each([
    ['/prod/', '/prod/queues/orders/jobs'],
    ['/', '/queues/orders/jobs'],
    ['', '/queues/orders/jobs'],
  ])(
    'sends a SigV4 signature over the body, the host and the idempotency key (endpoint path %j)',
    async (path, sent) => {
      received.splice(0);
      const client = new EchoMqClient({
        endpoint: `${origin}${path}`,
        region: 'eu-west-1',
        credentials: CREDENTIALS,
      });
      await client.enqueue('orders', 'signed body', { idempotencyKey: 'order-9' });
      const [request] = received;
      if (request === undefined) throw new Error('nothing was received');
      expect(request.path).toBe(sent);
      const authorization = String(request.headers.authorization);
      expect(authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/execute-api\/aws4_request, SignedHeaders=[^,]*\bhost\b[^,]*\bidempotency-key\b[^,]*, Signature=[0-9a-f]{64}$/,
      );
      expect(
        authorization.endsWith(
          `Signature=${expectedSignature(request, 'eu-west-1', 'execute-api')}`,
        ),
      ).toBe(true);
    },
  );

  it('refuses an authorization header of its own, which signing would replace', () => {
    expect(
      () =>
        new EchoMqClient({ endpoint, region: 'eu-west-1', headers: { Authorization: 'Bearer x' } }),
    ).toThrow(/credentials: false/);
  });
});

describe('an unsigned client', () => {
  it('sends the headers it is given, and no signature', async () => {
    received.splice(0);
    const client = new EchoMqClient({
      endpoint,
      credentials: false,
      headers: { authorization: 'Bearer a.jwt.token' },
    });
    await client.enqueue('orders', 'plain');
    expect(received[0]?.headers.authorization).toBe('Bearer a.jwt.token');
    expect(received[0]?.headers['x-amz-date']).toBeUndefined();
  });

  it('asks a headers function for each request, so a renewed token is sent', async () => {
    received.splice(0);
    let token = 0;
    const client = new EchoMqClient({
      endpoint,
      credentials: false,
      headers: async () => ({ authorization: `Bearer token-${++token}` }),
    });
    await client.enqueue('orders', 'one');
    await client.enqueue('orders', 'two');
    expect(received.map((request) => request.headers.authorization)).toEqual([
      'Bearer token-1',
      'Bearer token-2',
    ]);
  });
});

describe('the options', () => {
  it.each([
    [{ endpoint: 'not a url' }, /is not an http\(s\) URL/],
    [{ endpoint: 'ftp://example.com/' }, /is not an http\(s\) URL/],
    [{ endpoint: 'https://api.example.com/prod?stage=1' }, /has a query or fragment/],
    [{ endpoint: 'https://api.example.com/prod#jobs' }, /has a query or fragment/],
    [
      { endpoint: 'https://api.example.com/', credentials: false as const, maxPayloadBytes: -1 },
      /maxPayloadBytes must be a whole number from 0 to 6291456/,
    ],
    [
      { endpoint: 'https://api.example.com/', credentials: false as const, retry: { attempts: 0 } },
      /retry.attempts must be a number of at least 1/,
    ],
  ])('refuses %j with EMQ_INVALID_CONFIG', (options, message) => {
    expect(() => new EchoMqClient(options)).toThrow(message);
    expect(() => new EchoMqClient(options)).toThrow(
      expect.objectContaining({ code: 'EMQ_INVALID_CONFIG' }),
    );
  });
});

describe('signingScope', () => {
  it("takes the region and the service from an AWS endpoint's host", () => {
    expect(
      signingScope(
        new URL('https://abc123.execute-api.eu-central-1.amazonaws.com/prod'),
        undefined,
      ),
    ).toEqual({
      region: 'eu-central-1',
      service: 'execute-api',
    });
    expect(signingScope(new URL('https://xyz.lambda-url.ap-south-1.on.aws/'), undefined)).toEqual({
      region: 'ap-south-1',
      service: 'lambda',
    });
    expect(signingScope(new URL('https://api.example.com/'), 'us-west-2')).toEqual({
      region: 'us-west-2',
      service: 'execute-api',
    });
  });
});
