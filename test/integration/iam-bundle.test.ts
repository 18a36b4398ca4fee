// The built HTTP bundle with IAM authentication, run as Lambda runs it: in its own process,
// credentials from the environment through the SDK's default chain (as Lambda provides the
// role's), the signer imported at first use. Without IAM the bundle loads no @aws-sdk package.
import type { Valkey } from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIamToken } from '../../functions/shared/iam-token.js';
import { install } from '../../src/connection/fence.js';
import { enqueue } from '../../src/index.js';
import { fixture, type HttpEventJson, lambdaContext } from '../fixtures/http/events.js';
import { ADMIN, usersWithAdmin } from '../support/admin-user.js';
import { bundlePath, freshBundle, run } from '../support/bundles.js';
import { emq } from '../support/cli.js';
import { connectTo } from '../support/emq.js';
import { randomQueue, type ServerHandle, startStandalone } from '../support/servers.js';

const BUNDLE = bundlePath('functions/http');
const SOURCES = ['src', 'functions/http', 'functions/shared', 'cli'];
const TARGET = {
  userId: 'emq-iam',
  cacheName: 'emq-bundle-cache',
  region: 'eu-west-1',
  serverless: false,
};
// AWS's documented example key pair: fixed credentials, no account behind them.
const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
/** Seconds ahead the server accepts tokens for: the child signs at its own clock. */
const WINDOW_SECONDS = 60;

// Refuses every @aws-sdk import: a bundle that loads one on this path fails to serve.
const REFUSE_SDK = `data:text/javascript,export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@aws-sdk/')) throw new Error('loaded ' + specifier);
  return next(specifier, context);
}`;

const CHILD = `
const [bundle, events, contexts, refuse] = process.argv.slice(1);
if (refuse !== '') (await import('node:module')).register(refuse);
const { handler } = await import(bundle);
for (const [index, event] of JSON.parse(events).entries()) {
  const context = { ...JSON.parse(contexts)[index], getRemainingTimeInMillis: () => 30000 };
  const response = await handler(event, context);
  process.stdout.write('RESULT ' + JSON.stringify(response) + '\\n');
}
process.exit(0);
`;

let server: ServerHandle;
let admin: Valkey;

async function serve(
  events: readonly HttpEventJson[],
  env: Readonly<Record<string, string>>,
  refuseSdk: boolean,
): Promise<{ statusCode: number; body: string }[]> {
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
      refuseSdk ? REFUSE_SDK : '',
    ],
    { env: { PATH: process.env.PATH, EMQ_URL: server.url, ...env }, timeout: 20_000 },
  );
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('RESULT '))
    .map((line) => JSON.parse(line.slice('RESULT '.length)));
}

beforeAll(async () => {
  await freshBundle('functions/http', SOURCES);
  await freshBundle('cli/emq', SOURCES);
  server = await startStandalone({
    auth: ADMIN,
    extraArgs: usersWithAdmin([TARGET.userId, 'on', '>not-a-token', '~*', '&*', '+@all']),
  });
  admin = await server.client();
  await install(await connectTo(server, { ...ADMIN, checkFence: false }));
}, 180_000);

afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
});

/** The user accepts the tokens of every second a child may sign in from now, and nothing else. */
async function acceptTokensAhead(): Promise<void> {
  const start = Math.floor(Date.now() / 1000) * 1000;
  const tokens = await Promise.all(
    Array.from({ length: WINDOW_SECONDS }, (_, second) =>
      signIamToken(TARGET, CREDENTIALS, new Date(start + second * 1000)),
    ),
  );
  await admin.call('ACL', 'SETUSER', TARGET.userId, 'resetpass', ...tokens.map((t) => `>${t}`));
}

const IAM_ENV = {
  EMQ_IAM_AUTH: 'true',
  EMQ_USERNAME: TARGET.userId,
  EMQ_IAM_CACHE_NAME: TARGET.cacheName,
  AWS_REGION: TARGET.region,
  AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
  AWS_SESSION_TOKEN: '',
};

describe('the built CLI', () => {
  it('connects with a token signed with the credentials of the default chain', async () => {
    await acceptTokensAhead();
    const queue = randomQueue('iam-cli');
    const { id } = await enqueue(await connectTo(server, ADMIN), { queue, payload: 'hello' });
    const run = await emq(['get', queue, id, '--url', server.url, '--json'], { env: IAM_ENV });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ queue, id, state: 'pending' });
    expect(await admin.call('ACL', 'LOG')).toEqual([]);
  });
});

describe('the built HTTP bundle', () => {
  it('signs its token with the credentials of the default chain and serves', async () => {
    await acceptTokensAhead();
    const responses = await serve(
      [fixture('v2-post', { queue: randomQueue('iam-bundle') })],
      {
        EMQ_EXECUTOR: 'function',
        EMQ_IAM_AUTH: 'true',
        EMQ_USERNAME: TARGET.userId,
        EMQ_IAM_CACHE_NAME: TARGET.cacheName,
        AWS_REGION: TARGET.region,
        AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      },
      false,
    );
    expect(responses.map((response) => response.statusCode)).toEqual([201]);
    expect(await admin.call('ACL', 'LOG')).toEqual([]);
  });

  it('loads no @aws-sdk package to serve with a password', async () => {
    await admin.call('ACL', 'SETUSER', TARGET.userId, 'resetpass', '>a-password');
    const responses = await serve(
      [fixture('v2-post', { queue: randomQueue('iam-bundle') })],
      { EMQ_EXECUTOR: 'function', EMQ_USERNAME: TARGET.userId, EMQ_PASSWORD: 'a-password' },
      true,
    );
    expect(responses.map((response) => response.statusCode)).toEqual([201]);
  });

  it('fails to serve when IAM is on and @aws-sdk is refused (the check above can fail)', async () => {
    const responses = await serve(
      [fixture('v2-post', { queue: randomQueue('iam-bundle') })],
      {
        EMQ_EXECUTOR: 'function',
        EMQ_IAM_AUTH: 'true',
        EMQ_USERNAME: TARGET.userId,
        EMQ_IAM_CACHE_NAME: TARGET.cacheName,
        AWS_REGION: TARGET.region,
      },
      true,
    );
    expect(responses.map((response) => response.statusCode)).toEqual([503]);
  });
});
