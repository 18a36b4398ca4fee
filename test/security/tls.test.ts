// TLS: a valkey-server that accepts only TLS, with certificates made at test time. The
// connector verifies the server against the CA it is given and enqueues over TLS with both
// families; it refuses a server its CA did not sign; a plain-text client gets nowhere; and
// the built HTTP function trusts a private CA through NODE_EXTRA_CA_CERTS alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install } from '../../src/connection/fence.js';
import {
  type Connection,
  type ConnectOptions,
  connect,
  enqueue,
  readJob,
  UnavailableError,
} from '../../src/index.js';
import { fixture } from '../fixtures/http/events.js';
import { randomQueue } from '../support/servers.js';
import { ensureHttpBundle, serveWithBundle } from './http-bundle.js';
import { makeCertificates, type TestCertificates } from './tls-certs.js';
import { startTlsServer, type TlsServer } from './tls-server.js';

let certificates: TestCertificates;
let server: TlsServer;

beforeAll(async () => {
  await ensureHttpBundle();
  certificates = await makeCertificates();
  server = await startTlsServer(certificates, { module: true });
  const installer = await connect({
    urls: [server.url],
    tls: { ca: certificates.ca },
    checkFence: false,
  });
  await install(installer);
  await installer.close();
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await certificates?.remove();
});

async function connected(options: ConnectOptions, use: (c: Connection) => Promise<void>) {
  const connection = await connect(options);
  try {
    await use(connection);
  } finally {
    await connection.close();
  }
}

/** Tries to connect; returns what was thrown and the socket error codes the connector saw. */
async function refusal(options: ConnectOptions): Promise<{ error: unknown; codes: string[] }> {
  const codes: string[] = [];
  try {
    const connection = await connect({
      ...options,
      connectTimeoutMs: 1_000,
      onWarning: (_event, fields) => codes.push(fields.code ?? ''),
    });
    await connection.close();
    return { error: undefined, codes };
  } catch (error) {
    return { error, codes };
  }
}

describe.each(['native', 'function'] as const)('with the %s family', (family) => {
  it('enqueues over rediss:// with a connector that verifies the CA', async () => {
    await connected(
      { urls: [server.url], tls: { ca: certificates.ca }, family },
      async (connection) => {
        const queue = randomQueue('tls');
        const admitted = await enqueue(connection, { queue, payload: 'over tls' });
        expect(admitted.status).toBe('enqueued');
        const row = await readJob(connection, queue, admitted.id);
        expect(row?.payload.toString()).toBe('over tls');
      },
    );
  });
});

it('refuses, as unavailable, a server whose certificate another CA signed', async () => {
  const { error, codes } = await refusal({ urls: [server.url], tls: { ca: certificates.otherCa } });
  expect(error).toBeInstanceOf(UnavailableError);
  expect(codes.some((code) => /CERT|VERIFY|SELF_SIGNED/.test(code))).toBe(true);
});

it('refuses, as unavailable, a server it cannot verify with the system CAs alone', async () => {
  const { error, codes } = await refusal({ urls: [server.url] });
  expect(error).toBeInstanceOf(UnavailableError);
  expect(codes.some((code) => /CERT|VERIFY|SELF_SIGNED/.test(code))).toBe(true);
});

it('gets no answer in plain text from the TLS port', async () => {
  const { error } = await refusal({ urls: [server.url.replace('rediss://', 'redis://')] });
  expect(error).toBeInstanceOf(UnavailableError);
});

describe('the built HTTP function', () => {
  it('enqueues over TLS when NODE_EXTRA_CA_CERTS names the private CA', async () => {
    const response = await serveWithBundle(fixture('v2-post', { queue: randomQueue('tls') }), {
      EMQ_URL: server.url,
      NODE_EXTRA_CA_CERTS: certificates.caFile,
    });
    expect(response.statusCode).toBe(201);
  });

  it('answers 503 without naming the server when it cannot verify the server', async () => {
    const response = await serveWithBundle(fixture('v2-post', { queue: randomQueue('tls') }), {
      EMQ_URL: server.url,
      EMQ_CONNECT_TIMEOUT_MS: '1000',
    });
    expect(response.statusCode).toBe(503);
    expect(response.body).not.toContain(String(server.port));
  });
});
