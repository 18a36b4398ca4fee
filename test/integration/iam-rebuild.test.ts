// A renewal that fails on the open connection (its reply lost and the socket dropped, as a
// half-dead connection after a long freeze would) rebuilds the connection with the new token
// within the same invocation, instead of answering 503 on a connection that is reconnecting.
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/http/handler.js';
import { containerConnection, resetContainer } from '../../functions/shared/connection.js';
import { setIamSessionOptions } from '../../functions/shared/iam-session.js';
import { signIamToken, TOKEN_REFRESH_AFTER_MS } from '../../functions/shared/iam-token.js';
import { type LogSink, setLogSink } from '../../functions/shared/log.js';
import { install } from '../../src/connection/fence.js';
import { type ReplyDropProxy, startReplyDropProxy } from '../faults/support/reply-drop-proxy.js';
import { fixture } from '../fixtures/http/events.js';
import { clearEmqEnv, invoke } from '../fixtures/http/invoke.js';
import { ADMIN, usersWithAdmin } from '../support/admin-user.js';
import { connectTo } from '../support/emq.js';
import { randomQueue, type ServerHandle, startStandalone } from '../support/servers.js';

const TARGET = {
  userId: 'emq-iam',
  cacheName: 'emq-rebuild',
  region: 'eu-west-1',
  serverless: false,
};
const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};

let now = Date.parse('2026-12-01T12:00:00Z');
let server: ServerHandle;
let proxy: ReplyDropProxy;
let admin: Valkey;
const logLines: Record<string, unknown>[] = [];
let previousSink: LogSink;

async function acceptTokenAt(at: number): Promise<void> {
  const token = await signIamToken(TARGET, CREDENTIALS, new Date(at));
  await admin.call('ACL', 'SETUSER', TARGET.userId, 'on', 'resetpass', `>${token}`);
}

beforeAll(async () => {
  previousSink = setLogSink((line) => logLines.push(JSON.parse(line)));
  server = await startStandalone({
    auth: ADMIN,
    extraArgs: usersWithAdmin([TARGET.userId, 'off', '~*', '&*', '+@all']),
  });
  admin = await server.client();
  await install(await connectTo(server, { ...ADMIN, checkFence: false }));
  proxy = await startReplyDropProxy(server.port);
  setIamSessionOptions({ clock: () => now, credentials: async () => CREDENTIALS });
  await acceptTokenAt(now);
  await resetContainer();
  clearEmqEnv();
  Object.assign(process.env, {
    EMQ_URL: proxy.url,
    EMQ_EXECUTOR: 'function',
    EMQ_IAM_AUTH: 'true',
    EMQ_USERNAME: TARGET.userId,
    EMQ_IAM_CACHE_NAME: TARGET.cacheName,
    EMQ_IAM_REGION: TARGET.region,
  });
});

afterAll(async () => {
  await resetContainer();
  setIamSessionOptions({});
  setLogSink(previousSink);
  clearEmqEnv();
  admin?.disconnect();
  await proxy?.close();
  await server?.stop();
});

describe('a renewal the open connection cannot complete', () => {
  it('rebuilds the connection with the new token and serves in the same invocation', async () => {
    const post = () => invoke(handler, fixture('v2-post', { queue: randomQueue('iam-rebuild') }));
    expect((await post()).response.statusCode).toBe(201);
    const first = await containerConnection();

    now += TOKEN_REFRESH_AFTER_MS;
    await acceptTokenAt(now);
    // The renewal's AUTH runs, but its reply is lost with the connection.
    proxy.dropReplyTo('auth');
    expect((await post()).response.statusCode).toBe(201);
    expect(proxy.dropped()).toBe(1);
    expect(await containerConnection()).not.toBe(first);
    expect(logLines.map((line) => line.message)).toContain('iam re-authentication failed');
    expect(await admin.call('ACL', 'LOG')).toEqual([]);
  });
});
